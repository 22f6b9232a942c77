import { type HTMLElement, type Node, NodeType } from 'node-html-parser';

/**
 * node-html-parser's textContent and querySelector recurse once per level, so a page nested
 * tens of thousands of elements deep overflows the stack. Everything that reads a whole subtree
 * here walks it with an explicit stack instead.
 */
export function textOf(node: Node): string {
  const parts: string[] = [];
  const stack: Node[] = [node];
  while (stack.length > 0) {
    const current = stack.pop()!;
    if (current.nodeType === NodeType.TEXT_NODE) parts.push(current.text);
    else for (let i = current.childNodes.length - 1; i >= 0; i -= 1) stack.push(current.childNodes[i]);
  }
  return parts.join('');
}

/** Every element under `root` in document order, without recursion. */
export function* elementsOf(root: HTMLElement): Generator<HTMLElement> {
  const stack: Node[] = [...root.childNodes].reverse();
  while (stack.length > 0) {
    const current = stack.pop()!;
    if (current.nodeType !== NodeType.ELEMENT_NODE) continue;
    yield current as HTMLElement;
    for (let i = current.childNodes.length - 1; i >= 0; i -= 1) stack.push(current.childNodes[i]);
  }
}
