import type { CDPSession, Frame, Page } from 'rebrowser-puppeteer-core';
import { type HTMLElement, parse } from 'node-html-parser';
import { httpUrlAt } from '../formats/absolute-urls';
import { PARSE_OPTIONS } from '../formats/parsed-page';
import { withinDeadline } from './browser-failures';

/** Frames inlined into a page, at most this deep (a frame in a frame in a frame) and this many in all. */
const FRAME_DEPTH = 3;
const FRAME_LIMIT = 20;
/** Frames of other origins read into a page when asked (include_frames): each is a credit. */
export const OTHER_ORIGIN_FRAME_LIMIT = 5;
const FRAME_READ_MS = 5_000;

interface DomNode {
  nodeId: number;
  nodeName: string;
  documentURL?: string;
  children?: DomNode[];
  shadowRoots?: DomNode[];
  contentDocument?: DomNode;
}

/** A rendered page as HTML a reader can read whole (decision 0042), and the frames left out of it. */
export interface SerialisedPage {
  html: string;
  /** Frames of another origin, by URL: listed, not inlined. */
  otherOriginFrames: string[];
  /** Documents whose frames could not be told apart (their HTML and DOM disagree on how many there are): left as <iframe>, unread. */
  unmatchedFrameDocuments: number;
}

/**
 * The rendered page as HTML with its shadow trees — open and closed — written as declarative
 * shadow roots (CDP's DOM.getOuterHTML with includeShadowDOM: read below the page's JavaScript,
 * which can neither see nor stop it), so the same flattening as simple mode reads them in rendered
 * order; and its same-origin frames, to FRAME_DEPTH, written in place of their <iframe> as a
 * <div data-frame-src> holding the frame's body. Frames of another origin are listed.
 */
export async function serialisePage(cdp: CDPSession, pageUrl: string): Promise<SerialisedPage> {
  const otherOriginFrames: string[] = [];
  let frames = 0;
  let unmatched = 0;
  const origin = originOf(pageUrl);
  const outerHtmlOf = async (node: DomNode) =>
    ((await cdp.send('DOM.getOuterHTML', { nodeId: node.nodeId, includeShadowDOM: true } as never)) as { outerHTML: string }).outerHTML;

  const documentHtml = async (document: DomNode, depth: number): Promise<string> => {
    const outerHTML = await outerHtmlOf(document);
    const iframes = iframesOf(document);
    if (iframes.length === 0) return outerHTML;
    const tree = parse(outerHTML, PARSE_OPTIONS);
    const elements = tree.querySelectorAll('iframe');
    // Both are in tree order (a host's shadow tree before its children, as the serialisation writes it).
    if (elements.length !== iframes.length) {
      unmatched += 1;
      return outerHTML;
    }
    for (let i = 0; i < iframes.length; i += 1) {
      const frameDocument = iframes[i]!.contentDocument;
      // The URL the page framed (a frame that failed to load shows an error document's URL instead).
      const url = httpUrlAt(elements[i]!.getAttribute('src'), document.documentURL ?? pageUrl) ?? frameDocument?.documentURL ?? '';
      if (!frameDocument || originOf(url) !== origin) {
        if (url && !url.startsWith('about:')) otherOriginFrames.push(url);
        continue;
      }
      if (depth >= FRAME_DEPTH || frames >= FRAME_LIMIT) continue;
      frames += 1;
      const body = bodyOf(parse(await documentHtml(frameDocument, depth + 1), PARSE_OPTIONS));
      const holder = parse(`<div data-frame-src="${escapeAttribute(url)}"></div>`, PARSE_OPTIONS).firstChild as HTMLElement;
      holder.set_content(body);
      elements[i]!.replaceWith(holder);
    }
    return tree.toString();
  };

  try {
    // The document alone first: the whole tree (every node, as JSON) is asked for only when the page has frames.
    const { root } = (await cdp.send('DOM.getDocument', { depth: 0 })) as { root: DomNode };
    const html = await outerHtmlOf(root);
    if (!/<iframe/i.test(html)) return { html, otherOriginFrames, unmatchedFrameDocuments: 0 };
    const pierced = (await cdp.send('DOM.getDocument', { depth: -1, pierce: true })) as { root: DomNode };
    const whole = await documentHtml(pierced.root, 0);
    return { html: whole, otherOriginFrames: [...new Set(otherOriginFrames)], unmatchedFrameDocuments: unmatched };
  } finally {
    await cdp.send('DOM.disable').catch(() => undefined);
  }
}

/**
 * The frames of other origins the browser rendered (include_frames), as their HTML by the URL the
 * page framed them at: at most OTHER_ORIGIN_FRAME_LIMIT, each read from the frame's own document
 * (its requests went through the page's egress filter, so through the SSRF guard, like the page's);
 * a frame that is gone, never loaded, refused by the guard, or does not answer within FRAME_READ_MS is left out.
 */
export async function readOtherOriginFrames(page: Page, urls: string[], refused: (url: string) => boolean): Promise<Map<string, string>> {
  const read = new Map<string, string>();
  const frames = page.frames().filter((frame) => frame !== page.mainFrame());
  // A frame the SSRF guard refused shows the refusal, not a page: never read, never charged.
  for (const url of urls.filter((candidate) => !refused(candidate)).slice(0, OTHER_ORIGIN_FRAME_LIMIT)) {
    const frame = frames.find((candidate) => sameDocument(candidate.url(), url));
    if (!frame) continue;
    const html = await frameHtml(frame);
    if (html !== null) read.set(url, html);
  }
  return read;
}

async function frameHtml(frame: Frame): Promise<string | null> {
  try {
    return await withinDeadline(frame.content(), FRAME_READ_MS, () => new Error('frame read timed out'));
  } catch {
    // Too slow, detached mid-read, or its process gone: the frame stays listed, unread.
    return null;
  }
}

/**
 * The page with each frame read (by the URL it was framed at) written in place of its <iframe>, as a
 * same-origin frame is: a <div data-frame-src> holding the frame's body.
 */
export function withFramesInlined(html: string, pageUrl: string, frames: Map<string, string>): string {
  if (frames.size === 0) return html;
  const tree = parse(html, PARSE_OPTIONS);
  for (const element of tree.querySelectorAll('iframe')) {
    const url = httpUrlAt(element.getAttribute('src'), pageUrl);
    const frame = url === null ? undefined : frames.get(url);
    if (frame === undefined) continue;
    const holder = parse(`<div data-frame-src="${escapeAttribute(url!)}"></div>`, PARSE_OPTIONS).firstChild as HTMLElement;
    holder.set_content(bodyOf(parse(frame, PARSE_OPTIONS)));
    element.replaceWith(holder);
  }
  return tree.toString();
}

/** The same document: URLs equal but for a fragment. */
function sameDocument(a: string, b: string): boolean {
  return a.split('#')[0] === b.split('#')[0];
}

/** The iframes of one document in tree order, shadow trees first, not those of the frames' own documents. */
function iframesOf(document: DomNode): DomNode[] {
  const found: DomNode[] = [];
  const walk = (node: DomNode) => {
    if (node.nodeName === 'IFRAME') found.push(node);
    for (const shadow of node.shadowRoots ?? []) walk(shadow);
    for (const child of node.children ?? []) walk(child);
  };
  for (const child of document.children ?? []) walk(child);
  return found;
}

function bodyOf(document: HTMLElement): string {
  return (document.querySelector('body') ?? document).innerHTML;
}

function originOf(url: string): string | null {
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'http:' || parsed.protocol === 'https:' ? parsed.origin : null;
  } catch {
    return null;
  }
}

function escapeAttribute(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
}
