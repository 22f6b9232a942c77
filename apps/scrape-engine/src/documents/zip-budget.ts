import yauzl from 'yauzl';
import { DocumentUnreadableError } from './document-reading';

/** What a zip-based document (DOCX, XLSX, PPTX, OpenDocument, EPUB) may expand to. */
export interface ZipLimits {
  /** Bytes of every entry together, once inflated. */
  maxExpandedBytes: number;
  maxEntries: number;
}

export const ZIP_LIMITS: ZipLimits = { maxExpandedBytes: 200 * 1024 * 1024, maxEntries: 10_000 };

/**
 * A zip's entries, each inflated once and counted, before any document library opens it: a zip
 * bomb (an entry that inflates past the budget, or more entries than a document has) is refused
 * as `document_too_large` within the budget, and a header that understates an entry's size is
 * caught by yauzl as the entry inflates (it checks the bytes against the central directory), so
 * the sizes the libraries later trust are true. Answers each entry's name and inflated size.
 */
export async function zipEntriesWithin(bytes: Buffer, limits: ZipLimits = ZIP_LIMITS): Promise<Map<string, number>> {
  const zip = await new Promise<yauzl.ZipFile>((resolve, reject) =>
    yauzl.fromBuffer(bytes, { lazyEntries: true, validateEntrySizes: true, strictFileNames: false }, (error, file) =>
      error ? reject(corrupt(error)) : resolve(file),
    ),
  );
  if (zip.entryCount > limits.maxEntries) {
    zip.close();
    throw new DocumentUnreadableError(
      'document_too_large',
      `The file holds ${zip.entryCount} zip entries, more than the ${limits.maxEntries} a document may have here.`,
    );
  }
  const sizes = new Map<string, number>();
  let expanded = 0;
  return new Promise((resolve, reject) => {
    const fail = (error: Error) => {
      zip.close();
      reject(error);
    };
    zip.on('error', (error: Error) => fail(corrupt(error)));
    zip.on('end', () => resolve(sizes));
    zip.on('entry', (entry: yauzl.Entry) => {
      if (entry.fileName.endsWith('/')) return zip.readEntry();
      if (expanded + entry.uncompressedSize > limits.maxExpandedBytes) return fail(tooLarge(limits, expanded + entry.uncompressedSize));
      zip.openReadStream(entry, (error, stream) => {
        if (error) return fail(corrupt(error));
        let size = 0;
        stream.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (expanded + size > limits.maxExpandedBytes) {
            stream.destroy();
            fail(tooLarge(limits, expanded + size));
          }
        });
        stream.on('error', (streamError: Error) => fail(corrupt(streamError)));
        stream.on('end', () => {
          expanded += size;
          sizes.set(entry.fileName, size);
          zip.readEntry();
        });
      });
    });
    zip.readEntry();
  });
}

function corrupt(error: Error): DocumentUnreadableError {
  return new DocumentUnreadableError('document_corrupt', `The file is not a readable zip container: ${error.message}`);
}

function tooLarge(limits: ZipLimits, bytes: number): DocumentUnreadableError {
  return new DocumentUnreadableError(
    'document_too_large',
    `The file expands past ${limits.maxExpandedBytes} bytes (at least ${bytes}): a document does not; refused as a zip bomb.`,
  );
}
