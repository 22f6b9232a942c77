/**
 * The documents read into markdown (decision 0039). A "page" is a PDF's page, a presentation's
 * slide or a spreadsheet's sheet; a flowing document (Word, OpenDocument text, EPUB, RTF, CSV)
 * is one part, counted for billing by its text (DOCUMENT_PAGE_CHARACTERS to a page).
 */
export const DOCUMENT_FORMATS = ['pdf', 'docx', 'xlsx', 'pptx', 'odt', 'ods', 'odp', 'epub', 'rtf', 'csv'] as const;
export type DocumentFormat = (typeof DOCUMENT_FORMATS)[number];

/** Characters of text that count as one page of a flowing document (about a printed page). */
export const DOCUMENT_PAGE_CHARACTERS = 3000;

/** The most pages one document read reads (the rest are left out, and said so). */
export const DOCUMENT_MAX_PAGES = 2000;

/**
 * What a page recognised from its picture costs (`ocr: true`, a scanned PDF's page): its read and its
 * recognition, a credit each — seconds of a core where a text page takes milliseconds, still less
 * than a browser page.
 */
export const DOCUMENT_OCR_PAGE_CREDITS = 2;

/** A boolean option given as a query parameter or a form field ("true"/"false"), or in JSON. */
export function flagOf(value: unknown): unknown {
  if (value === 'true' || value === '1') return true;
  if (value === 'false' || value === '0' || value === '') return false;
  return value;
}

/** A `pages` value: 1-based pages and ranges, "3", "3-10", "12-" (to the end), comma-separated. */
export const PAGE_RANGES_PATTERN = /^\s*\d{1,6}\s*(-\s*\d{0,6}\s*)?(,\s*\d{1,6}\s*(-\s*\d{0,6}\s*)?)*$/;

/** At most this many ranges in one `pages` value (a bound on the work of asking). */
export const PAGE_RANGES_MAX = 100;

export interface PageRange {
  first: number;
  /** null: to the document's end. */
  last: number | null;
}

/**
 * The ranges of a `pages` value, or why it is not one: pages count from 1, a range never runs
 * backwards, and there are at most PAGE_RANGES_MAX of them.
 */
export function pageRangesOf(value: string): PageRange[] | string {
  if (value.length > 1000 || !PAGE_RANGES_PATTERN.test(value))
    return 'pages must be page numbers and ranges counted from 1, comma-separated: "3", "3-10", "12-" (to the end).';
  const parts = value.split(',');
  if (parts.length > PAGE_RANGES_MAX) return `pages takes at most ${PAGE_RANGES_MAX} ranges.`;
  const ranges: PageRange[] = [];
  for (const part of parts) {
    const [from, to] = part.split('-').map((side) => side.trim());
    const first = Number(from);
    const last = to === undefined ? first : to === '' ? null : Number(to);
    if (first < 1 || (last !== null && last < 1)) return 'pages count from 1.';
    if (last !== null && last < first) return `pages: the range ${part.trim()} runs backwards.`;
    ranges.push({ first, last });
  }
  return ranges;
}

/** Whether page `page` (from 1) is among `ranges` (every page when null). */
export function isPageWanted(ranges: readonly PageRange[] | null, page: number): boolean {
  return ranges === null || ranges.some((range) => page >= range.first && (range.last === null || page <= range.last));
}
