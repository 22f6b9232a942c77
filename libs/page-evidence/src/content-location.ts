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
const NOSCRIPT_BLOCK = /<noscript\b[^>]*>([\s\S]*?)<\/noscript\s*>/gi;
/** What a noscript prompt says; a block that says this and little else is not content. */
export const JAVASCRIPT_PROMPT =
  /enable javascript|javascript is (?:disabled|required|not enabled|turned off)|requires? javascript|turn on javascript|javascript must be enabled|activate javascript|doesn't work properly without javascript/i;
// A prompt block may carry a sentence or two around it (a logo's alt text, "for the best experience…").
const PROMPT_BLOCK_TEXT = 400;
/** Below this the noscript blocks are decoration (a tracking pixel's alt text, a prompt): the markup decides. */
const NOSCRIPT_CONTENT_TEXT = 200;
const APP_ROOT =
  /<(app-root|my-app|ng-app|app)\b[^>]*>\s*<\/\1>|<div\b[^>]*\bid=["']?(?:root|app|__next|__nuxt|___gatsby|main-app|application)["']?[^>]*>\s*<\/div>/i;

/**
 * Framework boot data: where the page's content sits until a script renders it. Each finds the
 * data's text in the raw HTML; the prose in it is then measured (see proseIn).
 */
const BOOT_DATA: Array<{ source: string; pattern: RegExp }> = [
  { source: '__NEXT_DATA__', pattern: /<script\b[^>]*\bid=["']?__NEXT_DATA__["']?[^>]*>([\s\S]*?)<\/script\s*>/gi },
  { source: 'next-flight', pattern: /self\.__next_f\.push\(([\s\S]*?)\)<\/script\s*>/gi },
  { source: 'data-preloaded', pattern: /\bdata-preloaded=(?:"([^"]*)"|'([^']*)')/gi },
  {
    source: '__NUXT__',
    pattern: /window\.__NUXT__\s*=([\s\S]*?)<\/script\s*>|<script\b[^>]*\bid=["']?__NUXT_DATA__["']?[^>]*>([\s\S]*?)<\/script\s*>/gi,
  },
  {
    source: 'initial-state',
    pattern:
      /window\.(?:__INITIAL_STATE__|__PRELOADED_STATE__|__APOLLO_STATE__|__INITIAL_DATA__|__DATA__|__STATE__|__SERVER_DATA__)\s*=([\s\S]*?)<\/script\s*>/gi,
  },
  { source: 'remix-context', pattern: /window\.__remixContext\s*=([\s\S]*?)<\/script\s*>/gi },
  { source: 'angular-transfer-state', pattern: /<script\b[^>]*\bid=["']?(?:ng-state|serverApp-state)["']?[^>]*>([\s\S]*?)<\/script\s*>/gi },
  { source: 'sveltekit-data', pattern: /<script\b[^>]*\bdata-sveltekit-fetched\b[^>]*>([\s\S]*?)<\/script\s*>/gi },
];
// A string of a JSON (or JS) literal, escaped quotes included.
const STRING_LITERAL = /"((?:[^"\\]|\\.){24,})"/g;
const DECODE_ENTITIES: Record<string, string> = { quot: '"', amp: '&', lt: '<', gt: '>', apos: "'", '#39': "'", '#34': '"' };

/** Reads where an unrendered page keeps its text. */
export function locateContent(html: string, options: { thorough?: boolean } = {}): ContentLocation {
  const markupText = visibleTextLengthOf(html);
  let noscriptText = 0;
  let javascriptPrompt = false;
  for (const match of html.matchAll(NOSCRIPT_BLOCK)) {
    const text = visibleTextOf(match[1] ?? '');
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
  location.emptyAppRoot = SHELL_MARKERS.some((m) => m.startsWith('<') && head.toLowerCase().includes(m)) || APP_ROOT.test(head);
  for (const match of head.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script\s*>/gi)) {
    if (/\bsrc\s*=/i.test(match[1] ?? '')) location.externalScripts += 1;
    else location.inlineScriptChars += (match[2] ?? '').length;
  }
  // A script the page preloads is one it will run (an archived copy may have lost the <script> itself).
  location.externalScripts += (
    head.match(/<link\b[^>]*\brel=["']?modulepreload|<link\b(?=[^>]*\brel=["']?preload)(?=[^>]*\bas=["']?script)/gi) ?? []
  ).length;
  return location;
}

function embeddedDataOf(html: string): ContentLocation['embeddedData'] {
  const found: ContentLocation['embeddedData'] = [];
  for (const { source, pattern } of BOOT_DATA) {
    let text = 0;
    let seen = false;
    for (const match of html.matchAll(pattern)) {
      seen = true;
      const data = match.slice(1).find((group) => group !== undefined) ?? '';
      text += proseIn(source === 'data-preloaded' ? decodeAttribute(data) : data);
    }
    if (seen) found.push({ source, text });
  }
  return found;
}

/**
 * Characters of prose in a data blob: string literals that read like text (several words, not a
 * URL, a class list or an identifier), their markup removed. Escaped once or twice (JSON inside a
 * JSON string, as Next's flight data and Discourse's preload are) both count.
 */
export function proseIn(data: string): number {
  let text = 0;
  for (const match of data.matchAll(STRING_LITERAL)) {
    const value = unescapeLiteral(match[1]!);
    if (/^(?:https?:|\/|data:|[\w-]+:\/\/)/.test(value)) continue;
    const words = visibleTextOf(value)
      .replace(/\\[nrt"\\/]/g, ' ')
      .trim();
    // Prose has words with spaces between them; a class list (`flex items-center px-4`) has tokens.
    const tokens = words.split(' ');
    if (tokens.length < 4 || !/[A-Za-z\u00C0-\uFFFF]{3}/.test(words)) continue;
    if (tokens.filter((t) => /^[a-z0-9_:[\]/.!-]*[-:_][a-z0-9_:[\]/.!-]*$/.test(t)).length * 2 >= tokens.length) continue;
    text += words.length;
  }
  return text;
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
  return html.replace(NOSCRIPT_BLOCK, (_, inner: string) => {
    const text = visibleTextOf(inner);
    return JAVASCRIPT_PROMPT.test(text) && text.length <= PROMPT_BLOCK_TEXT ? '' : inner;
  });
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
