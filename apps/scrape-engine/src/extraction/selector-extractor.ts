import { type HTMLElement, parse } from 'node-html-parser';
import { absoluteUrl, URL_ATTRIBUTES } from '../formats/absolute-urls';
import { type ParsedPage, textOf } from '../formats/parsed-page';

/** One `extract` entry (spec 2.4): a selector, or {selector, multiple, attribute}. */
export type ExtractionSpec = string | { selector: string; multiple?: boolean; attribute?: string };

export type SelectorKind = 'css' | 'xpath';

/** `css:<selector>`, `xpath:<expression>`, a bare expression starting with `//` (XPath), else CSS. */
export function parseSelector(selector: string): { kind: SelectorKind; expression: string } {
  const trimmed = selector.trim();
  if (trimmed.startsWith('css:')) return { kind: 'css', expression: trimmed.slice(4).trim() };
  if (trimmed.startsWith('xpath:')) return { kind: 'xpath', expression: trimmed.slice(6).trim() };
  if (trimmed.startsWith('//') || trimmed.startsWith('(//')) return { kind: 'xpath', expression: trimmed };
  return { kind: 'css', expression: trimmed };
}

export class InvalidSelectorError extends Error {
  constructor(
    readonly field: string,
    readonly selector: string,
    reason: string,
  ) {
    super(`extract.${field}: "${selector}" is not a valid ${parseSelector(selector).kind.toUpperCase()} selector (${reason})`);
  }
}

/** The `xpath` package: a complete XPath 1.0 engine over any DOM (jsdom's own misses filter expressions). */
interface XPathValue {
  toArray?: () => Node[];
  numberValue(): number;
  stringValue(): string;
  booleanValue(): boolean;
}
// eslint-disable-next-line @typescript-eslint/no-require-imports
const xpath = require('xpath') as { parse(expression: string): { evaluate(options: { node: Node; isHtml: boolean }): XPathValue } };

/**
 * Runs the `extract` map over a page. Text values are trimmed with inner whitespace collapsed;
 * URL-valued attributes (href, src, …) come back absolute. `multiple: true` gives a list (possibly
 * empty); otherwise the first match or null. CSS runs on node-html-parser; XPath needs a full DOM,
 * so jsdom is loaded only when an XPath selector is present.
 */
export class SelectorExtractor {
  /** Throws InvalidSelectorError for the first selector that cannot be compiled (→ 422 before fetching). */
  assertValid(specs: Record<string, ExtractionSpec>): void {
    const probe = parse('<html><body></body></html>');
    for (const [field, spec] of Object.entries(specs)) {
      const selector = typeof spec === 'string' ? spec : spec.selector;
      const { kind, expression } = parseSelector(selector);
      if (!expression) throw new InvalidSelectorError(field, selector, 'empty');
      try {
        if (kind === 'css') probe.querySelectorAll(expression);
        else xpath.parse(expression);
      } catch (error) {
        throw new InvalidSelectorError(field, selector, error instanceof Error ? error.message.split('\n')[0] : 'does not compile');
      }
    }
  }

  /** Runs on the scrape's one parse of the page (shared with markdown); XPath alone needs its own DOM. */
  extract(page: ParsedPage, specs: Record<string, ExtractionSpec>): Record<string, unknown> {
    const root = page.root;
    const base = page.baseUrl;
    let xdoc: Document | null = null;
    const out: Record<string, unknown> = {};
    for (const [field, spec] of Object.entries(specs)) {
      const { selector, multiple = false, attribute } = typeof spec === 'string' ? { selector: spec } : spec;
      const { kind, expression } = parseSelector(selector);
      const values =
        kind === 'css'
          ? root.querySelectorAll(expression).map((el) => valueOfElement(el, attribute, base))
          : xpathValues((xdoc ??= xpathDocument(page.html)), expression, attribute, base);
      out[field] = multiple ? values : (values[0] ?? null);
    }
    return out;
  }
}

function valueOfElement(el: HTMLElement, attribute: string | undefined, base: string): string | null {
  if (!attribute) return collapse(textOf(el));
  const value = el.getAttribute(attribute);
  if (value === undefined) return null;
  return URL_ATTRIBUTES.includes(attribute.toLowerCase()) ? absoluteUrl(value, base) : value;
}

function collapse(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

function xpathDocument(html: string): Document {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { JSDOM } = require('jsdom') as typeof import('jsdom');
  return new JSDOM(html).window.document;
}

function xpathValues(
  doc: Document,
  expression: string,
  attribute: string | undefined,
  base: string,
): Array<string | number | boolean | null> {
  const result = xpath.parse(expression).evaluate({ node: doc, isHtml: true });
  if (typeof result.toArray !== 'function') {
    const kind = (result as unknown as { constructor: { name: string } }).constructor.name;
    return [kind === 'XNumber' ? result.numberValue() : kind === 'XBoolean' ? result.booleanValue() : result.stringValue()];
  }
  return result.toArray().map((node) => {
    if (node.nodeType === 2 /* attribute */) {
      const attr = node as Attr;
      return URL_ATTRIBUTES.includes(attr.name.toLowerCase()) ? absoluteUrl(attr.value, base) : attr.value;
    }
    if (attribute && node.nodeType === 1) {
      const value = (node as Element).getAttribute(attribute);
      return value === null ? null : URL_ATTRIBUTES.includes(attribute.toLowerCase()) ? absoluteUrl(value, base) : value;
    }
    return collapse(node.textContent ?? '');
  });
}
