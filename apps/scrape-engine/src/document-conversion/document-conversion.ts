import {
  CONTENT_RULES_VERSION,
  type DocumentConversionResult,
  type ScrapeExecutionFacts,
  type UploadedDocumentRequest,
} from '@lib/contracts';
import { Injectable } from '@nestjs/common';
import { countDocument } from '../sync-scrape/scrape-metrics';
import { documentKindOf, mediaTypeOf } from '../documents/document-kinds';
import {
  askOf,
  creditsOf,
  documentFactsOf,
  DocumentUnreadableError,
  type DocumentUnreadableReason,
  readFactsOf,
  readingNotes,
} from '../documents/document-reading';
import { DocumentThreads } from '../documents/document-threads';
import {
  DocumentCorruptError,
  DocumentEncryptedError,
  DocumentTooLargeError,
  InvalidScrapeRequestError,
  UnsupportedDocumentError,
} from '../scrape-engine.errors';

const REFUSALS: Record<DocumentUnreadableReason, new (message: string) => Error> = {
  document_encrypted: DocumentEncryptedError,
  document_corrupt: DocumentCorruptError,
  document_too_large: DocumentTooLargeError,
};

/**
 * POST /v1/documents/convert on the engine: a file a client already has, read as a scraped
 * document is (its format by Content-Type, bytes or file name; on a document thread), charged a
 * credit per page read. A file that cannot be read is the client's to fix: a typed 4xx, never
 * charged.
 */
@Injectable()
export class DocumentConversion {
  constructor(private readonly documents: DocumentThreads) {}

  async convert(upload: UploadedDocumentRequest): Promise<{ facts: ScrapeExecutionFacts; result: DocumentConversionResult }> {
    const started = performance.now();
    const bytes = Buffer.from(upload.bytes_base64, 'base64');
    const name = `https://upload.invalid/${encodeURIComponent(upload.filename ?? 'upload')}`;
    const kind = documentKindOf(upload.media_type, bytes, name);
    if (!kind)
      throw new UnsupportedDocumentError(
        `The file is not a document this service reads (PDF, DOCX, XLSX, PPTX, ODT, ODS, ODP, EPUB, RTF, CSV): its type is ${upload.media_type ?? 'not given'} and its bytes and name do not tell one.`,
      );
    const ask = askOf(upload);
    if (typeof ask === 'string') throw new InvalidScrapeRequestError(ask, { field: 'pages' });
    let read;
    try {
      read = await this.documents.read(kind, bytes, ask);
    } catch (error) {
      if (!(error instanceof DocumentUnreadableError)) throw error;
      countDocument({ format: kind, outcome: 'unreadable', pages: 0, reason: error.reason, read_ms: performance.now() - started });
      throw new REFUSALS[error.reason](error.message);
    }
    const credits = creditsOf(read);
    const facts: ScrapeExecutionFacts = {
      billable: true,
      credits,
      mode: 'simple',
      target_domain: 'upload',
      status_code: 200,
      block_reason: null,
      protection_stack: [],
      rule_hits: [],
      rules_version: CONTENT_RULES_VERSION,
      proxy: null,
      attempts: 1,
      document: readFactsOf(kind, read, performance.now() - started),
    };
    countDocument(facts.document!);
    return {
      facts,
      result: {
        content_type: mediaTypeOf(kind),
        markdown: upload.format === 'html' ? null : read.markdown,
        html: upload.format === 'html' ? read.html : null,
        document: documentFactsOf(kind, read),
        links: read.links,
        notes: readingNotes(read),
        credits_charged: credits,
        execution_ms: Math.round(performance.now() - started),
      },
    };
  }
}
