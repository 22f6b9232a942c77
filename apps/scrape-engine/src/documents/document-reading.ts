import {
  type DocumentFacts,
  DOCUMENT_MAX_PAGES,
  DOCUMENT_OCR_PAGE_CREDITS,
  type PageRange,
  pageRangesOf,
  type ScrapeExecutionFacts,
} from '@lib/contracts';
import type { DocumentKind } from './document-kinds';
import type { PageImage, RecognisedLine } from './page-recognition';
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

/** Which pages to read: those `wanted`, in order, at most `max`, none started after `deadline` (performance.now()); a scan's pages by `recognition` when OCR is asked. */
export interface DocumentPages {
  wanted: (page: number) => boolean;
  max: number;
  deadline: number;
  recognition?: PageRecogniser | null;
}

/** What reads a page's picture (PageRecognition on a document thread). */
export interface PageRecogniser {
  recognise(image: PageImage): Promise<RecognisedLine[]>;
}

/** A document as a client asked for it, for a document thread: its pages, at most how many, within what time, and whether scans are read by OCR. */
export interface DocumentAsk {
  ranges: PageRange[] | null;
  max: number;
  budgetMs: number;
  ocr: boolean;
}

/** The ask of a scrape's or an upload's options, or why its `pages` is not one (a 422 at pages). */
export function askOf(options: { pages?: string; max_pages?: number; ocr?: boolean }): DocumentAsk | string {
  const ranges = options.pages ? pageRangesOf(options.pages) : null;
  if (typeof ranges === 'string') return ranges;
  return { ranges, max: options.max_pages ?? DOCUMENT_MAX_PAGES, budgetMs: DOCUMENT_READ_BUDGET_MS, ocr: options.ocr === true };
}

/** What a document read costs: its pages' credits, at least the request's own. */
export function creditsOf(read: ReadDocument): number {
  return Math.max(1, read.charged);
}

/** What the answer says of the document (metadata.document, or an upload's document): its own metadata and what reading it took and cost. */
export function documentFactsOf(kind: DocumentKind, read: ReadDocument): DocumentFacts {
  return {
    format: kind,
    ...read.metadata,
    pages_read: read.pages.length,
    pages_charged: creditsOf(read),
    ...(read.recognised > 0 ? { pages_ocr: read.recognised } : {}),
    ocr_required: read.ocrRequired,
  };
}

/** What the engine's facts (metrics, the run's record) say of a document read. */
export function readFactsOf(
  kind: DocumentKind,
  read: ReadDocument,
  readMs: number,
): Omit<NonNullable<ScrapeExecutionFacts['document']>, 'reason'> {
  return {
    format: kind,
    outcome: read.ocrRequired ? 'ocr_required' : 'read',
    pages: read.pages.length,
    ...(read.recognised > 0 ? { pages_ocr: read.recognised } : {}),
    read_ms: readMs,
  };
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
  /** The credits its pages cost: a credit a page read (DOCUMENT_OCR_PAGE_CREDITS a page read by OCR), or a flowing document's text by DOCUMENT_PAGE_CHARACTERS. */
  charged: number;
  /** Pages of a scan read by OCR. */
  recognised: number;
  /** Why wanted pages were left unread: the page cap, the time budget, or null when none were. */
  cut: 'max_pages' | 'time' | null;
  /** No text layer to speak of on pages not read by OCR: they are images (a scan) and need OCR to be read. */
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
    ...(read.ocrRequired
      ? ['ocr_required: the PDF has no text layer (a scan); its pages are images: ask with ocr: true to read them by OCR']
      : []),
    ...(read.recognised > 0
      ? [
          `ocr: ${read.recognised} scanned page${read.recognised === 1 ? '' : 's'} read by OCR (English), ${DOCUMENT_OCR_PAGE_CREDITS} credits each`,
        ]
      : []),
    ...(read.cut === 'max_pages' ? [`document cut at max_pages: ${of}`] : []),
    ...(read.cut === 'time' ? [`document cut at its ${DOCUMENT_READ_BUDGET_MS / 1000} s budget: ${of}; ask for the rest with pages`] : []),
  ];
}
