import { type HTMLElement, type Node, NodeType } from 'node-html-parser';
import { elementsOf } from './tree-walk';

// A hidden element holding at least this share of the page's text outside its header, navigation
// and footer (and this much) is the page waiting for a script to show it, not a detail the page
// hides. The chrome is left out of the share: a shop's mega menu can hold more text than the
// product the page is about.
const REVEAL_SHARE = 0.5;
const REVEAL_TEXT = 200;
const HIDDEN_STYLE = /(?:^|;)\s*(?:display\s*:\s*none|visibility\s*:\s*hidden)\s*(?:!important)?\s*(?:;|$)/i;
const STREAMED_SEGMENT = /^S:(\d+)$/;
// A hidden element whose words are mostly (this share) already in the page's visible text is a copy.
const COPY_SHARE = 0.6;
const CHROME_TAGS = new Set(['header', 'nav', 'footer']);
const CHROME_ROLES = new Set(['banner', 'navigation', 'contentinfo']);

/**
 * The page as its server sent it for scripts to finish, finished the way they would, for a scrape
 * whose scripts did not run (simple mode): the content is in the HTML, only placed or shown later.
 * - React's streamed server rendering (Next.js app router) sends each suspended part as
 *   `<div hidden id="S:n">` at the end of the body, and a script moves it into its placeholder
 *   `<template id="B:n">` (or `P:n`): done here, so the part reads where the page shows it.
 * - A page hidden whole until a script reveals it (`visibility:hidden` on a wrapper against a
 *   flash of unstyled content, `hidden` on the app's container): a hidden element holding most of
 *   the page's text is shown.
 * Returns whether the tree changed.
 */
export function finishUnscriptedPage(body: HTMLElement): boolean {
  let changed = placeStreamedSegments(body);
  const total = textLengthsOfHidden(body);
  let shown: Set<string> | null = null;
  for (const [element, length] of total.hidden) {
    if (length < REVEAL_TEXT || length < REVEAL_SHARE * (total.all - total.chrome)) continue;
    // A hidden copy of what the page already shows (a raw-markdown twin, a print version) stays hidden.
    shown ??= wordsOf(visibleTextOf(body, total.hidden));
    const words = wordsOf(element.textContent);
    let known = 0;
    for (const word of words) if (shown.has(word)) known += 1;
    if (known >= COPY_SHARE * words.size) continue;
    element.removeAttribute('hidden');
    if (element.getAttribute('aria-hidden') === 'true') element.removeAttribute('aria-hidden');
    const style = element.getAttribute('style');
    if (style !== undefined)
      element.setAttribute('style', style.replace(/(?:display\s*:\s*none|visibility\s*:\s*hidden)\s*(?:!important)?/gi, ''));
    changed = true;
  }
  return changed;
}

function placeStreamedSegments(body: HTMLElement): boolean {
  const segments = new Map<string, HTMLElement>();
  const placeholders = new Map<string, HTMLElement>();
  for (const element of elementsOf(body)) {
    const id = element.id;
    if (!id || id.length > 12) continue;
    const tag = element.rawTagName?.toLowerCase();
    const segment = STREAMED_SEGMENT.exec(id);
    if (segment && tag === 'div' && element.hasAttribute('hidden')) segments.set(segment[1]!, element);
    else if (tag === 'template' && /^[BP]:\d+$/.test(id)) placeholders.set(id.slice(2), element);
  }
  let placed = false;
  for (const [n, segment] of segments) {
    const placeholder = placeholders.get(n);
    if (!placeholder?.parentNode) continue;
    segment.remove();
    placeholder.replaceWith(...segment.childNodes);
    placed = true;
  }
  return placed;
}

/**
 * Text length of the whole subtree, of the page's chrome in it (header, navigation, footer: what a
 * script never reveals as the page), and of each outermost hidden element outside the chrome, in
 * one walk.
 */
function textLengthsOfHidden(root: HTMLElement): { all: number; chrome: number; hidden: Map<HTMLElement, number> } {
  const hidden = new Map<HTMLElement, number>();
  let all = 0;
  let chrome = 0;
  // By an explicit stack: each node with the hidden ancestor being measured (outermost) and whether it is in the chrome.
  const stack: Array<{ node: Node; measuring: HTMLElement | null; inChrome: boolean }> = [{ node: root, measuring: null, inChrome: false }];
  while (stack.length > 0) {
    const { node, measuring, inChrome } = stack.pop()!;
    if (node.nodeType === NodeType.TEXT_NODE) {
      const length = node.rawText.trim().length;
      all += length;
      if (inChrome) chrome += length;
      else if (measuring) hidden.set(measuring, (hidden.get(measuring) ?? 0) + length);
      continue;
    }
    if (node.nodeType !== NodeType.ELEMENT_NODE) continue;
    const element = node as HTMLElement;
    const tag = element.rawTagName?.toLowerCase();
    if (tag === 'script' || tag === 'style' || tag === 'noscript' || tag === 'template') continue;
    const chromeHere = inChrome || (measuring === null && isChrome(element, tag));
    let inside = measuring;
    if (!measuring && !chromeHere && node !== root && isHidden(element)) {
      inside = element;
      hidden.set(element, 0);
    }
    for (const child of element.childNodes) stack.push({ node: child, measuring: inside, inChrome: chromeHere });
  }
  return { all, chrome, hidden };
}

/** The page's text outside the hidden elements, scripts and styles. */
function visibleTextOf(root: HTMLElement, hidden: Map<HTMLElement, number>): string {
  const parts: string[] = [];
  const stack: Node[] = [root];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (node.nodeType === NodeType.TEXT_NODE) parts.push(node.rawText);
    if (node.nodeType !== NodeType.ELEMENT_NODE || hidden.has(node as HTMLElement)) continue;
    const tag = (node as HTMLElement).rawTagName?.toLowerCase();
    if (tag === 'script' || tag === 'style' || tag === 'noscript' || tag === 'template') continue;
    stack.push(...node.childNodes);
  }
  return parts.join(' ');
}

/** Distinct words of three letters or more, lower-cased. */
function wordsOf(text: string): Set<string> {
  return new Set((text.toLowerCase().match(/[\p{L}\p{N}]{3,}/gu) ?? []) as string[]);
}

function isChrome(element: HTMLElement, tag: string | undefined): boolean {
  if (tag && CHROME_TAGS.has(tag)) return true;
  const role = element.getAttribute('role');
  return role !== undefined && CHROME_ROLES.has(role.toLowerCase());
}

function isHidden(element: HTMLElement): boolean {
  const raw = element.rawAttrs;
  if (!raw || (!raw.includes('hidden') && !raw.includes('none'))) return false;
  if (element.hasAttribute('hidden') || element.getAttribute('aria-hidden') === 'true') return true;
  const style = element.getAttribute('style');
  return style !== undefined && HIDDEN_STYLE.test(style);
}
