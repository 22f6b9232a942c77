import { locateContent, SHELL_MARKERS, SHELL_TEXT, visibleTextOf } from '@lib/page-evidence';
import { type HTMLElement, parse } from 'node-html-parser';

/** What comparing a page's raw HTML with its rendered DOM says about needing a browser. */
export interface JavaScriptNeed {
  javascriptRequired: boolean;
  /**
   * How sure the analysis is that a browser is needed, 0–1: the share of the rendered page's visible
   * text that only scripts produced (weight 0.6), an empty app root or a `<noscript>` prompt in the
   * raw HTML (0.25), and the share of content elements (paragraphs, headings, list items, rows) that
   * only exist after rendering (0.15). Near 0: the raw HTML already holds the content.
   */
  browserConfidence: number;
  rawTextLength: number;
  renderedTextLength: number;
  /** A selector of content that appeared only after rendering: what a browser request should wait for. */
  appearedSelector: string | null;
  reasons: string[];
}

const CONTENT_ELEMENTS = 'p, h1, h2, h3, li, tr, article, td, dd, figcaption, blockquote';
const NOSCRIPT_PROMPT = /enable javascript|javascript is (disabled|required)|requires javascript|turn on javascript/i;
/** Below this, the rendered page holds too little to judge (the render failed or the page is empty). */
const MEANINGFUL_TEXT = 20;
/** Text scripts must add, unless they add half the page or more: a small page built by its script counts too. */
const GAINED_TEXT = 500;

/**
 * Compares the raw HTML of a simple fetch with the DOM a browser rendered from the same URL.
 * JavaScript is required when scripts produced most of what a reader sees — at least twice the
 * text a client without JavaScript reads (noscript content included) and 500 more characters or
 * half the rendered page, whichever is less — or an app shell that rendering filled. Judged by
 * that evidence, not by size: a heading and a list a script writes make a small page that needs it.
 */
export function assessJavaScriptNeed(rawHtml: string, renderedHtml: string | null): JavaScriptNeed {
  const rawText = locateContent(rawHtml).readableText;
  const reasons: string[] = [];
  const lowerRaw = rawHtml.toLowerCase();
  const emptyRoot =
    SHELL_MARKERS.filter((m) => m.startsWith('<')).some((m) => lowerRaw.includes(m)) || /<(app-root|my-app)[^>]*>\s*<\/\1>/i.test(rawHtml);
  const noscriptPrompt = [...rawHtml.matchAll(/<noscript\b[^>]*>([\s\S]*?)<\/noscript>/gi)].some((m) => NOSCRIPT_PROMPT.test(m[1] ?? ''));
  const shell = emptyRoot || noscriptPrompt;
  if (emptyRoot) reasons.push('the raw HTML has an empty application root');
  if (noscriptPrompt) reasons.push('the raw HTML asks the reader to enable JavaScript');
  if (renderedHtml === null) {
    reasons.push('no rendering to compare with');
    return {
      javascriptRequired: shell && rawText < SHELL_TEXT,
      browserConfidence: shell && rawText < SHELL_TEXT ? 0.5 : 0,
      rawTextLength: rawText,
      renderedTextLength: 0,
      appearedSelector: null,
      reasons,
    };
  }
  const renderedText = visibleTextOf(renderedHtml).length;
  const raw = parse(rawHtml);
  const rendered = parse(renderedHtml);
  const rawElements = contentElementsOf(raw);
  const renderedElements = contentElementsOf(rendered);
  const textGain = renderedText > 0 ? Math.max(0, renderedText - rawText) / renderedText : 0;
  const elementGain = renderedElements > 0 ? Math.max(0, renderedElements - rawElements) / renderedElements : 0;
  const meaningful = renderedText >= MEANINGFUL_TEXT;
  const gained = renderedText - rawText;
  const javascriptRequired =
    meaningful &&
    ((renderedText >= 2 * rawText && gained >= Math.min(GAINED_TEXT, renderedText / 2)) || (shell && rawText < SHELL_TEXT && gained > 0));
  const browserConfidence = meaningful ? round(Math.min(1, 0.6 * textGain + (shell ? 0.25 : 0) + 0.15 * elementGain)) : 0;
  reasons.push(
    `visible text ${rawText} characters raw, ${renderedText} rendered; content elements ${rawElements} raw, ${renderedElements} rendered`,
  );
  if (!meaningful) reasons.push('the rendered page holds almost no text: nothing to compare');
  return {
    javascriptRequired,
    browserConfidence,
    rawTextLength: rawText,
    renderedTextLength: renderedText,
    appearedSelector: javascriptRequired ? appearedSelectorOf(raw, rendered) : null,
    reasons,
  };
}

function contentElementsOf(root: HTMLElement): number {
  return root.querySelectorAll(CONTENT_ELEMENTS).filter((element) => element.text.trim().length > 0).length;
}

/** The first element with an id (or a main/article) that has text after rendering and none before. */
function appearedSelectorOf(raw: HTMLElement, rendered: HTMLElement): string | null {
  for (const element of rendered.querySelectorAll('[id], main, article')) {
    const text = element.text.trim();
    if (text.length < 50) continue;
    const selector = element.id ? `#${cssEscape(element.id)}` : element.rawTagName.toLowerCase();
    const before = raw.querySelector(selector);
    if (!before || before.text.trim().length < 10) return `css:${selector}`;
  }
  return null;
}

function cssEscape(id: string): string {
  return id.replace(/[^A-Za-z0-9_-]/g, (c) => `\\${c}`);
}

function round(value: number): number {
  return Math.round(value * 100) / 100;
}
