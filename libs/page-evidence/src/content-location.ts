import { visibleTextLengthOf, visibleTextOf } from './page-text';
import { BLOCK_STATUSES, GATE_PHRASES, GATE_TEXT, SHELL_MARKERS, SHELL_TEXT, SMALL_PAGE_TEXT } from './protection-rules';

/**
 * Where an unrendered page (what a simple fetch gets) keeps the text a reader sees, measured
 * without a DOM (it runs on every response): in its markup, in `<noscript>` blocks (which every
 * client without JavaScript, a simple fetch included, is shown), or only in data its scripts
 * will render (framework boot data). The content verdict and the formats read the same evidence:
 * a page is judged by where its text is, not by how much of it the markup shows.
 */
export interface ContentLocation {
  /** Visible characters of the markup (scripts, styles, templates, noscript and head left out). */
  markupText: number;
  /** Characters of the `<noscript>` blocks that are content, not a "please enable JavaScript" prompt. */
  noscriptText: number;
  /** The page is built for clients without JavaScript through `<noscript>`: read it as such a client would. */
  noscriptIsContent: boolean;
  /** Characters a reader gets without running a script: the markup's, plus the noscript content when that is how the page serves it. */
  readableText: number;
  /** The fields below are measured only where readableText is under SHELL_TEXT (or when asked to be thorough). */
  /** Boot data that scripts render from, with the prose it holds (characters of text-like strings). */
  embeddedData: Array<{ source: string; text: number }>;
  /** An application root that is empty in the markup (`<div id="root"></div>`, `<app-root></app-root>`…). */
  emptyAppRoot: boolean;
  /** The page (or a noscript block) asks the reader to enable JavaScript. */
  javascriptPrompt: boolean;
  /** Inline script characters, and how many scripts the page loads (or preloads) from elsewhere. */
  inlineScriptChars: number;
  externalScripts: number;
}

// Past this, a page's scripts and app roots are not searched (the measures read the whole page).
const MAX_SCANNED = 4_000_000;
/** What a noscript prompt says; a block that says this and little else is not content. */
export const JAVASCRIPT_PROMPT =
  /enable javascript|javascript is (?:disabled|required|not enabled|turned off)|requires? javascript|turn on javascript|javascript must be enabled|activate javascript|doesn't work properly without javascript/i;
// A prompt block may carry a sentence or two around it (a logo's alt text, "for the best experience…").
const PROMPT_BLOCK_TEXT = 400;
/** Below this the noscript blocks are decoration (a tracking pixel's alt text, a prompt): the markup decides. */
const NOSCRIPT_CONTENT_TEXT = 200;
const APP_ROOT =
  /<(app-root|my-app|ng-app|app)\b[^<>]*>\s*<\/\1>|<div\b[^<>]*\bid=["']?(?:root|app|__next|__nuxt|___gatsby|main-app|application)["']?[^<>]*>\s*<\/div>/i;

/**
 * Framework boot data: where the page's content sits until a script renders it. Each is told by its
 * script element (its attributes, or how its code starts); the prose in it is then measured (see
 * proseIn). Discourse's preload is an attribute instead (data-preloaded="…").
 */
const BOOT_SCRIPTS: Array<{ source: string; attributes?: RegExp; code?: RegExp }> = [
  { source: '__NEXT_DATA__', attributes: /\bid=["']?__NEXT_DATA__\b/i },
  { source: 'next-flight', code: /^\s*\(?self\.__next_f\s*=\s*self\.__next_f\s*\|\||^\s*self\.__next_f\.push\(/ },
  { source: '__NUXT__', attributes: /\bid=["']?__NUXT_DATA__\b/i, code: /^\s*window\.__NUXT__\s*=/ },
  {
    source: 'initial-state',
    code: /^\s*window\.(?:__INITIAL_STATE__|__PRELOADED_STATE__|__APOLLO_STATE__|__INITIAL_DATA__|__DATA__|__STATE__|__SERVER_DATA__)\s*=/,
  },
  { source: 'remix-context', code: /^\s*window\.__remixContext\s*=/ },
  { source: 'angular-transfer-state', attributes: /\bid=["']?(?:ng-state|serverApp-state)\b/i },
  { source: 'sveltekit-data', attributes: /\bdata-sveltekit-fetched\b/i },
];
const DECODE_ENTITIES: Record<string, string> = { quot: '"', amp: '&', lt: '<', gt: '>', apos: "'", '#39': "'", '#34': '"' };

/** Reads where an unrendered page keeps its text. */
export function locateContent(html: string, options: { thorough?: boolean } = {}): ContentLocation {
  const markupText = visibleTextLengthOf(html);
  let noscriptText = 0;
  let javascriptPrompt = false;
  for (const block of elementBlocks(html, 'noscript')) {
    const text = visibleTextOf(block.content);
    if (JAVASCRIPT_PROMPT.test(text)) {
      javascriptPrompt = true;
      if (text.length <= PROMPT_BLOCK_TEXT) continue;
    }
    noscriptText += text.length;
  }
  const noscriptIsContent = noscriptText >= NOSCRIPT_CONTENT_TEXT && noscriptText > markupText;
  if (!javascriptPrompt && markupText < NOSCRIPT_CONTENT_TEXT) javascriptPrompt = JAVASCRIPT_PROMPT.test(visibleTextOf(html));
  const readableText = markupText + (noscriptIsContent ? noscriptText : 0);
  const location = {
    markupText,
    noscriptText,
    noscriptIsContent,
    readableText,
    javascriptPrompt,
    embeddedData: [] as ContentLocation['embeddedData'],
    emptyAppRoot: false,
    inlineScriptChars: 0,
    externalScripts: 0,
  };
  // What scripts would render only matters to a page that shows little without them (and costs a few scans).
  if (readableText >= SHELL_TEXT && !options.thorough) return location;
  location.embeddedData = embeddedDataOf(html);
  const head = html.length <= MAX_SCANNED ? html : html.slice(0, MAX_SCANNED);
  const lowerHead = head.toLowerCase();
  location.emptyAppRoot = SHELL_MARKERS.some((m) => m.startsWith('<') && lowerHead.includes(m)) || APP_ROOT.test(head);
  for (const script of elementBlocks(head, 'script')) {
    if (/\bsrc\s*=/i.test(script.attributes)) location.externalScripts += 1;
    else location.inlineScriptChars += script.content.length;
  }
  // A script the page preloads is one it will run (an archived copy may have lost the <script> itself).
  location.externalScripts += (
    head.match(/<link\b[^<>]*\brel=["']?modulepreload|<link\b(?=[^<>]*\brel=["']?preload)(?=[^<>]*\bas=["']?script)/gi) ?? []
  ).length;
  return location;
}

function embeddedDataOf(html: string): ContentLocation['embeddedData'] {
  const text = new Map<string, number>();
  for (const { source, data } of bootDataOf(html)) text.set(source, (text.get(source) ?? 0) + proseIn(data));
  return [...text].map(([source, prose]) => ({ source, text: prose }));
}

/** The page's framework boot data, block by block in page order: boot scripts, then Discourse's data-preloaded attributes. */
function* bootDataOf(html: string): Generator<{ source: string; data: string }> {
  for (const script of elementBlocks(html, 'script')) {
    const boot = BOOT_SCRIPTS.find((b) => b.attributes?.test(script.attributes) || b.code?.test(script.content.slice(0, 200)));
    if (boot) yield { source: boot.source, data: script.content };
  }
  // data-preloaded="…": read by indexOf, so an attribute left open ends the search instead of rescanning the page.
  for (let at = html.indexOf('data-preloaded='); at >= 0; at = html.indexOf('data-preloaded=', at + 1)) {
    const quote = html[at + 15];
    if (quote !== '"' && quote !== "'") continue;
    const end = html.indexOf(quote, at + 16);
    if (end < 0) return;
    yield { source: 'data-preloaded', data: decodeAttribute(html.slice(at + 16, end)) };
    at = end;
  }
}

/**
 * The `<tag …>…</tag>` elements of a page (script, noscript: their content is raw text), in one
 * left-to-right pass: an element left open ends the walk (nothing after it can close), so the work
 * is linear on any input, however many unclosed tags a hostile page holds.
 */
export function* elementBlocks(html: string, tag: 'script' | 'noscript'): Generator<{ attributes: string; content: string }> {
  const open = new RegExp(`<${tag}\\b([^<>]*)>`, 'gi');
  const close = new RegExp(`</${tag}\\s*>`, 'gi');
  for (let opened = open.exec(html); opened; opened = open.exec(html)) {
    close.lastIndex = open.lastIndex;
    const closed = close.exec(html);
    if (!closed) return;
    yield { attributes: opened[1] ?? '', content: html.slice(open.lastIndex, closed.index) };
    open.lastIndex = close.lastIndex;
  }
}

/**
 * Characters of prose in a data blob: string literals that read like text (several words, not a
 * URL, a class list or an identifier), their markup removed. Escaped once or twice (JSON inside a
 * JSON string, as Next's flight data and Discourse's preload are) both count.
 */
export function proseIn(data: string): number {
  let text = 0;
  for (const prose of proseLiteralsOf(data)) text += prose.length;
  return text;
}

/**
 * The prose of a data blob (see proseIn), literal by literal, as text. With `nested`, a literal
 * that is itself JSON (Next's flight data, Discourse's preload) is read literal by literal too,
 * so its keys do not read as prose.
 */
function* proseLiteralsOf(data: string, nested = false): Generator<string> {
  for (const literal of stringLiteralsOf(data)) {
    if (literal.length < 24) continue;
    const value = unescapeLiteral(literal);
    if (/^(?:https?:|\/|data:|[\w-]+:\/\/)/.test(value)) continue;
    if (nested && /"[^"]{0,64}"\s*[:,]\s*["[{\d]/.test(value)) {
      yield* proseLiteralsOf(value, false);
      continue;
    }
    const words = visibleTextOf(value)
      .replace(/\\[nrt"\\/]/g, ' ')
      .trim();
    // Prose has words with spaces between them; a class list (`flex items-center px-4`) has tokens.
    const tokens = words.split(' ');
    if (tokens.length < 4 || !/[A-Za-z\u00C0-\uFFFF]{3}/.test(words)) continue;
    if (tokens.filter((t) => /^[a-z0-9_:[\]/.!-]*[-:_][a-z0-9_:[\]/.!-]*$/.test(t)).length * 2 >= tokens.length) continue;
    yield words;
  }
}

/**
 * The text a page keeps in its framework boot data (the sources embeddedData names), as paragraphs
 * in the data's order, each once: what a client without JavaScript can read of a page that scripts
 * render. At most `maxChars` characters are gathered.
 */
export function embeddedProseOf(html: string, maxChars: number): { sources: string[]; paragraphs: string[] } {
  const sources = new Set<string>();
  const seen = new Set<string>();
  const paragraphs: string[] = [];
  let total = 0;
  for (const { source, data } of bootDataOf(html)) {
    for (const prose of proseLiteralsOf(data, true)) {
      if (seen.has(prose)) continue;
      seen.add(prose);
      sources.add(source);
      paragraphs.push(prose);
      total += prose.length;
      if (total >= maxChars) return { sources: [...sources], paragraphs };
    }
  }
  return { sources: [...sources], paragraphs };
}

/** The contents of the double-quoted string literals of a JSON or script text, in one pass (an unclosed one ends it). */
function* stringLiteralsOf(data: string): Generator<string> {
  for (let at = data.indexOf('"'); at >= 0;) {
    let end = at + 1;
    while (end < data.length && data.charCodeAt(end) !== 34 /* " */) end += data.charCodeAt(end) === 92 /* \\ */ ? 2 : 1;
    if (end >= data.length) return;
    yield data.slice(at + 1, end);
    at = data.indexOf('"', end + 1);
  }
}

function unescapeLiteral(value: string): string {
  return value
    .replace(/\\u([0-9a-fA-F]{4})/g, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)))
    .replace(/\\(["\\/])/g, '$1')
    .replace(/\\[nrt]/g, ' ');
}

function decodeAttribute(value: string): string {
  return value.replace(/&(quot|amp|lt|gt|apos|#39|#34);/g, (_, name: string) => DECODE_ENTITIES[name] ?? '');
}

/** The page as a client without JavaScript reads it: where noscript carries the content, its blocks become markup (prompts are dropped). */
export function withNoscriptAsMarkup(html: string): string {
  const open = /<noscript\b[^<>]*>/gi;
  const close = /<\/noscript\s*>/gi;
  let out = '';
  let at = 0;
  for (let opened = open.exec(html); opened; opened = open.exec(html)) {
    close.lastIndex = open.lastIndex;
    const closed = close.exec(html);
    if (!closed) break;
    const inner = html.slice(open.lastIndex, closed.index);
    const text = visibleTextOf(inner);
    out += html.slice(at, opened.index) + (JAVASCRIPT_PROMPT.test(text) && text.length <= PROMPT_BLOCK_TEXT ? '' : inner);
    at = close.lastIndex;
    open.lastIndex = close.lastIndex;
  }
  return out + html.slice(at);
}

/**
 * Whether a page carrying a CAPTCHA widget or a vendor's challenge is the gate itself, with the
 * evidence (`status:403`, `title:…`, `phrase:…`, `thin:120`), or null when the page carries its
 * content beside the widget. `smallText` is the page's readable text, lower case, asked only for
 * a small page.
 */
export function gateEvidenceOf(page: { statusCode: number; title: string; readableText: number; smallText: () => string }): string | null {
  if (BLOCK_STATUSES.includes(page.statusCode)) return `status:${page.statusCode}`;
  const titled = GATE_PHRASES.find((p) => page.title.includes(p)) ?? (/captcha/.test(page.title) ? 'captcha' : null);
  if (titled) return `title:${titled}`;
  if (page.readableText >= SMALL_PAGE_TEXT) return null;
  if (page.readableText < GATE_TEXT) return `thin:${page.readableText}`;
  const text = page.smallText();
  const phrase = GATE_PHRASES.find((p) => text.includes(p));
  return phrase ? `phrase:${phrase}` : null;
}
