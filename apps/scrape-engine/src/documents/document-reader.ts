import { COMPOUND_FILE, type DocumentKind } from './document-kinds';
import { type DocumentPages, DocumentUnreadableError, type ReadDocument } from './document-reading';
import { readOffice } from './office-document';
import { readPdf } from './pdf-document';
import { readCsv, readXlsx } from './spreadsheet-document';

/** The reader of each document format: one row each (decision 0039). */
const READERS: Record<DocumentKind, (bytes: Buffer, pages: DocumentPages) => Promise<ReadDocument>> = {
  pdf: (bytes, pages) => readPdf(bytes, pages),
  docx: (bytes, pages) => readOffice(bytes, 'docx', pages),
  pptx: (bytes, pages) => readOffice(bytes, 'pptx', pages),
  xlsx: (bytes, pages) => readXlsx(bytes, pages),
  odt: (bytes, pages) => readOffice(bytes, 'odt', pages),
  ods: (bytes, pages) => readOffice(bytes, 'ods', pages),
  odp: (bytes, pages) => readOffice(bytes, 'odp', pages),
  epub: (bytes, pages) => readOffice(bytes, 'epub', pages),
  rtf: (bytes, pages) => readOffice(bytes, 'rtf', pages),
  csv: async (bytes, pages) => readCsv(bytes.toString('utf8'), pages),
};

/**
 * A document read into markdown, HTML and text, or refused with a typed reason. An Office file
 * wrapped in an OLE compound file is either encrypted (its EncryptedPackage stream) or a legacy
 * binary format (.doc, .xls, .ppt), which is not read.
 */
export async function readDocument(kind: DocumentKind, bytes: Buffer, pages: DocumentPages): Promise<ReadDocument> {
  if (bytes.subarray(0, 8).equals(COMPOUND_FILE)) {
    if (bytes.indexOf(Buffer.from('EncryptedPackage', 'utf16le')) !== -1)
      throw new DocumentUnreadableError('document_encrypted', `The ${kind} file is encrypted with a password.`);
    throw new DocumentUnreadableError(
      'document_corrupt',
      'The file is a legacy binary Office document (.doc, .xls, .ppt), which is not read here.',
    );
  }
  return READERS[kind](bytes, pages);
}
