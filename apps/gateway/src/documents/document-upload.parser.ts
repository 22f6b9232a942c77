import busboy from 'busboy';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { IncomingMessage } from 'node:http';
import { BadRequestError } from '@lib/errors';
import { UnsupportedUploadError, UploadTooLargeError } from '../gateway.errors';

/** The one route that takes a file. */
export const DOCUMENT_UPLOAD_ROUTE = '/v1/documents/convert';

/**
 * Past the cap, what a client still sends is read and dropped up to this much, so that it reads
 * the 413 instead of a reset connection; beyond it the connection is closed.
 */
const DRAIN_BYTES = 8 * 1024 * 1024;

/** A form's own bytes beyond its file (boundaries, part headers, its few fields). */
const FORM_OVERHEAD_BYTES = 64 * 1024;

/** Bodies the upload parser reads: a document's own media type, octet-stream, or a form. */
const UPLOAD_TYPES =
  /^(application\/(pdf|x-pdf|octet-stream|msword|rtf|x-rtf|epub\+zip|csv|zip|vnd\.openxmlformats-officedocument\.[a-z.]+|vnd\.oasis\.opendocument\.[a-z.]+)|text\/(csv|rtf|tab-separated-values)|multipart\/form-data)\s*(;|$)/i;

/** A file sent to POST /v1/documents/convert, as its parser read it. */
export class UploadedDocument {
  constructor(
    readonly bytes: Buffer,
    /** The media type the client gave the file (the raw body's Content-Type, or the form part's). */
    readonly mediaType: string | null,
    readonly filename: string | null,
    /** A form's other fields (options, as the query would give them). */
    readonly fields: Record<string, string>,
  ) {}
}

/**
 * Reads uploads for POST /v1/documents/convert only, bounded before it costs: a Content-Length
 * past `maxBytes` is answered 413 before a byte of the body is read; a body without one (chunked)
 * is stopped at the cap as it streams. Multipart forms go through busboy (one file, a few short
 * fields). Any other route keeps answering these types 415, as before.
 */
export function installDocumentUploadParser(fastify: FastifyInstance, maxBytes: number): void {
  fastify.addContentTypeParser(UPLOAD_TYPES, (request: FastifyRequest, payload: IncomingMessage, done) => {
    const path = request.url.split('?')[0];
    const mediaType = (request.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
    const finish = once(done);
    if (path !== DOCUMENT_UPLOAD_ROUTE) {
      payload.resume();
      // The answer every other route gives a body it does not take (Fastify's 415, unsupported_media_type).
      return finish(
        Object.assign(
          new Error(`Unsupported Media Type: ${mediaType} (this route takes application/json; files go to POST ${DOCUMENT_UPLOAD_ROUTE}).`),
          {
            statusCode: 415,
          },
        ),
      );
    }
    const form = mediaType === 'multipart/form-data';
    const declared = Number(request.headers['content-length']);
    if (declared > maxBytes + (form ? FORM_OVERHEAD_BYTES : 0)) {
      payload.resume();
      return finish(tooLarge(maxBytes, `its Content-Length says ${declared} bytes`));
    }
    if (form) return readForm(request, payload, maxBytes, finish);
    const chunks: Buffer[] = [];
    let size = 0;
    payload.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= maxBytes) return void chunks.push(chunk);
      chunks.length = 0;
      finish(tooLarge(maxBytes, `it sent more than that`));
      if (size > maxBytes + DRAIN_BYTES) payload.destroy();
    });
    payload.on('error', (error) => finish(error));
    payload.on('end', () => finish(null, new UploadedDocument(Buffer.concat(chunks), mediaType, null, {})));
  });
}

function readForm(
  request: FastifyRequest,
  payload: IncomingMessage,
  maxBytes: number,
  finish: (error: Error | null, value?: unknown) => void,
): void {
  let parser: busboy.Busboy;
  try {
    parser = busboy({ headers: request.headers, limits: { files: 1, fileSize: maxBytes, fields: 10, fieldSize: 1000, parts: 12 } });
  } catch (error) {
    payload.resume();
    return finish(new BadRequestError(`The form cannot be read: ${(error as Error).message}.`));
  }
  const fields: Record<string, string> = {};
  let file: { bytes: Buffer; mediaType: string | null; filename: string | null } | null = null;
  let reading: Promise<void> = Promise.resolve();
  parser.on('field', (name, value) => {
    fields[name] = value;
  });
  parser.on('file', (name, stream, info) => {
    if (name !== 'file' || file) return stream.resume();
    const chunks: Buffer[] = [];
    reading = new Promise((resolve) => {
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('limit', () => {
        chunks.length = 0;
        finish(tooLarge(maxBytes, 'it sent more than that'));
        // The rest of the form is read and dropped (busboy skips the file's remainder), within the drain.
        let drained = 0;
        payload.on('data', (chunk: Buffer) => {
          drained += chunk.length;
          if (drained > DRAIN_BYTES) payload.destroy();
        });
      });
      stream.on('close', () => {
        const mediaType = info.mimeType && info.mimeType !== 'application/octet-stream' ? info.mimeType.toLowerCase() : null;
        file = { bytes: Buffer.concat(chunks), mediaType, filename: info.filename || null };
        resolve();
      });
    });
  });
  parser.on('partsLimit', () => finish(new BadRequestError('The form has more parts than a file and its options.')));
  parser.on('error', (error: Error) => finish(new BadRequestError(`The form cannot be read: ${error.message}.`)));
  parser.on(
    'close',
    () =>
      void reading.then(() => {
        if (!file) return finish(new UnsupportedUploadError('The form has no file: send it in the field named "file".'));
        finish(null, new UploadedDocument(file.bytes, file.mediaType, file.filename, fields));
      }),
  );
  payload.pipe(parser);
}

function tooLarge(maxBytes: number, why: string): UploadTooLargeError {
  return new UploadTooLargeError(`A document may be at most ${maxBytes} bytes (DOCUMENT_MAX_BYTES); ${why}.`);
}

/** The parser's callback, called once whatever the stream does after. */
function once(done: (error: Error | null, value?: unknown) => void): (error: Error | null, value?: unknown) => void {
  let called = false;
  return (error, value) => {
    if (called) return;
    called = true;
    done(error, value);
  };
}
