import { type HTMLElement, type Node, NodeType } from 'node-html-parser';

/**
 * Declarative shadow DOM (`<template shadowrootmode="open|closed">`, and the older `shadowroot`)
 * written into the HTML as the browser renders it: each host's children become its shadow tree,
 * with every `<slot>` replaced by the host's children assigned to it (by `slot` name; the unnamed
 * slot takes the rest) or by its own fallback content when none is. The result is the flat tree a
 * reader sees, in rendered order. Browser mode serialises open shadow roots the same way (see
 * browser/page-serialisation.ts), so one function reads both.
 *
 * A template without the attribute stays inert, as a browser keeps it. Returns whether anything changed.
 */
export function flattenShadowRoots(root: HTMLElement): boolean {
  let changed = false;
  // Hosts are found and flattened top-down: a flattened host's new children are walked after it,
  // so hosts nested in a shadow tree or slotted into one are flattened in their turn.
  const stack: HTMLElement[] = [root];
  while (stack.length > 0) {
    const element = stack.pop()!;
    const template = shadowTemplateOf(element);
    if (template) {
      attachShadowTree(element, template);
      changed = true;
    }
    for (let i = element.childNodes.length - 1; i >= 0; i -= 1) {
      const child = element.childNodes[i]!;
      if (child.nodeType === NodeType.ELEMENT_NODE) stack.push(child as HTMLElement);
    }
  }
  return changed;
}

/** Whether an HTML text may hold a declarative shadow root (a cheap test before parsing for it). */
export function mayHoldShadowRoots(html: string): boolean {
  return /shadowroot/i.test(html);
}

function isShadowTemplate(node: Node): node is HTMLElement {
  if (node.nodeType !== NodeType.ELEMENT_NODE) return false;
  const element = node as HTMLElement;
  if (element.rawTagName?.toLowerCase() !== 'template') return false;
  const mode = (element.getAttribute('shadowrootmode') ?? element.getAttribute('shadowroot'))?.toLowerCase();
  return mode === 'open' || mode === 'closed';
}

/** The host's declarative shadow root: its first child template with a mode (a browser attaches one root, the first). */
function shadowTemplateOf(element: HTMLElement): HTMLElement | null {
  for (const child of element.childNodes) if (isShadowTemplate(child)) return child;
  return null;
}

function attachShadowTree(host: HTMLElement, template: HTMLElement): void {
  const light = host.childNodes.filter((child) => child !== template);
  const byName = new Map<string, Node[]>();
  for (const node of light) {
    const name = node.nodeType === NodeType.ELEMENT_NODE ? ((node as HTMLElement).getAttribute('slot') ?? '') : '';
    byName.set(name, [...(byName.get(name) ?? []), node]);
  }
  const filled = new Set<string>();
  for (const slot of slotsOf([...template.childNodes])) {
    const name = slot.getAttribute('name') ?? '';
    // A name's nodes go to its first slot; later slots of the same name show their fallback.
    const assigned = filled.has(name) ? [] : (byName.get(name) ?? []).filter((node) => !isBlankText(node) || name === '');
    filled.add(name);
    const replacement = assigned.some((node) => !isBlankText(node)) ? assigned : [...slot.childNodes];
    replaceNode(slot, replacement);
  }
  setChildren(host, [...template.childNodes]);
}

/** The slots of a shadow tree: not those inside a nested host's own shadow template (they are that host's). */
function slotsOf(nodes: Node[]): HTMLElement[] {
  const slots: HTMLElement[] = [];
  const stack = [...nodes].reverse();
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (node.nodeType !== NodeType.ELEMENT_NODE || isShadowTemplate(node)) continue;
    const element = node as HTMLElement;
    if (element.rawTagName?.toLowerCase() === 'slot') slots.push(element);
    for (let i = element.childNodes.length - 1; i >= 0; i -= 1) stack.push(element.childNodes[i]!);
  }
  return slots;
}

function isBlankText(node: Node): boolean {
  return node.nodeType === NodeType.TEXT_NODE && node.rawText.trim() === '';
}

function replaceNode(node: Node, replacements: Node[]): void {
  const parent = node.parentNode;
  if (!parent) return;
  const at = parent.childNodes.indexOf(node);
  if (at < 0) return;
  for (const replacement of replacements) replacement.parentNode = parent;
  parent.childNodes.splice(at, 1, ...replacements);
}

function setChildren(host: HTMLElement, children: Node[]): void {
  for (const child of children) child.parentNode = host;
  host.childNodes.length = 0;
  host.childNodes.push(...children);
}
