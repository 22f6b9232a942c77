/**
 * What every document reader shares (decision 0039): the pages it is asked for, what it answers,
 * and how it refuses a file it cannot read.
 */

/** encrypted: a password is needed; corrupt: not the format it says; too_large: past a cap of its own kind (pages, expanded bytes). */
export type DocumentUnreadableReason = 'document_encrypted' | 'document_corrupt' | 'document_too_large';

/** How long one document's pages are read before the rest are left out (said so, with the pages read). */
export const DOCUMENT_READ_BUDGET_MS = 20_000;

/** A document declaring more pages than this is refused before any page is read (a page-tree bomb). */
export const DOCUMENT_MAX_DECLARED_PAGES = 50_000;

/** Which pages to read: those `wanted`, in order, at most `max`, none started after `deadline` (performance.now()). */
export interface DocumentPages {
  wanted: (page: number) => boolean;
  max: number;
  deadline: number;
}

/** Why a document could not be read: its file says so, not the fetch. */
export class DocumentUnreadableError extends Error {
  constructor(
    readonly reason: DocumentUnreadableReason,
    message: string,
  ) {
    super(message);
  }
}

export interface DocumentMetadata {
  title: string | null;
  author: string | null;
  /** ISO 8601, when the file says. */
  created: string | null;
  language: string | null;
  page_count: number;
}

/** A document read: its markdown (with a `<!-- page N -->` marker before each page), plain text, simple HTML, and what it says of itself. */
export interface ReadDocument {
  markdown: string;
  text: string;
  html: string;
  metadata: DocumentMetadata;
  /** The pages read (within max_pages and the ranges asked). */
  pages: number[];
  /** The pages charged (a credit each): the pages read, or a flowing document's text by DOCUMENT_PAGE_CHARACTERS. */
  charged: number;
  /** Why wanted pages were left unread: the page cap, the time budget, or null when none were. */
  cut: 'max_pages' | 'time' | null;
  /** No text layer to speak of: the pages are images (a scan) and need OCR to be read. */
  ocrRequired: boolean;
  /** The http(s) links of the pages read, first occurrence order. */
  links: string[];
}

/** Why reading stops before the next wanted page, if it does: `max` pages read already, or the time budget spent. */
export function stopBefore(pages: DocumentPages, readSoFar: number): ReadDocument['cut'] {
  if (readSoFar >= pages.max) return 'max_pages';
  if (performance.now() > pages.deadline) return 'time';
  return null;
}

/** What a reading left out and why, as notes for the answer: a scan, a cut at max_pages or at the time budget. */
export function readingNotes(read: ReadDocument): string[] {
  const of = `${read.pages.length} pages read of ${read.metadata.page_count}`;
  return [
    ...(read.ocrRequired ? ['ocr_required: the PDF has no text layer (a scan); its pages are images'] : []),
    ...(read.cut === 'max_pages' ? [`document cut at max_pages: ${of}`] : []),
    ...(read.cut === 'time' ? [`document cut at its ${DOCUMENT_READ_BUDGET_MS / 1000} s budget: ${of}; ask for the rest with pages`] : []),
  ];
}
