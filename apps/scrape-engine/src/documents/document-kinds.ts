import type { DocumentFormat } from '@lib/contracts';

/** The documents the engine reads into markdown (decision 0039), one row per format. */
export type DocumentKind = DocumentFormat;

const OOXML = 'application/vnd.openxmlformats-officedocument';
const ODF = 'application/vnd.oasis.opendocument';

/** Each format: the media types that name it, its extensions, and the zip entry or mimetype that tells it inside a zip. */
const FORMATS: Array<{ kind: DocumentKind; types: string[]; extensions: string[]; inZip?: string }> = [
  { kind: 'pdf', types: ['application/pdf', 'application/x-pdf'], extensions: ['.pdf'] },
  { kind: 'docx', types: [`${OOXML}.wordprocessingml.document`], extensions: ['.docx'], inZip: 'word/document.xml' },
  { kind: 'xlsx', types: [`${OOXML}.spreadsheetml.sheet`], extensions: ['.xlsx'], inZip: 'xl/workbook.xml' },
  { kind: 'pptx', types: [`${OOXML}.presentationml.presentation`], extensions: ['.pptx'], inZip: 'ppt/presentation.xml' },
  { kind: 'odt', types: [`${ODF}.text`], extensions: ['.odt'], inZip: `${ODF}.text` },
  { kind: 'ods', types: [`${ODF}.spreadsheet`], extensions: ['.ods'], inZip: `${ODF}.spreadsheet` },
  { kind: 'odp', types: [`${ODF}.presentation`], extensions: ['.odp'], inZip: `${ODF}.presentation` },
  { kind: 'epub', types: ['application/epub+zip'], extensions: ['.epub'], inZip: 'application/epub+zip' },
  { kind: 'rtf', types: ['application/rtf', 'text/rtf', 'application/x-rtf'], extensions: ['.rtf'] },
  { kind: 'csv', types: ['text/csv', 'application/csv', 'text/tab-separated-values'], extensions: ['.csv', '.tsv'] },
];

const BY_TYPE = new Map(FORMATS.flatMap((format) => format.types.map((type) => [type, format.kind] as const)));
const BY_EXTENSION = new Map(FORMATS.flatMap((format) => format.extensions.map((extension) => [extension, format.kind] as const)));
/** Media types a server sends when it does not say what a file is. */
const VAGUE = new Set([
  'application/octet-stream',
  'binary/octet-stream',
  'application/download',
  'application/force-download',
  'application/zip',
  'application/x-zip-compressed',
]);
const ZIP = Buffer.from([0x50, 0x4b, 0x03, 0x04]);
/** An OLE compound file: a legacy .doc/.xls/.ppt, or an encrypted OOXML file wrapped in one. */
export const COMPOUND_FILE = Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]);

/**
 * What document a response is, if any: its Content-Type when it names a format; else its bytes
 * (a PDF's header anywhere in the first 1 KB — the format allows bytes before it —, an RTF's
 * `{\rtf`, a zip whose entries say which format it is); else its URL's extension when the server
 * said nothing useful. HTML, JSON, XML and plain text are never documents.
 */
export function documentKindOf(contentType: string | null, body: Buffer, url: string): DocumentKind | null {
  const declared = contentType?.split(';')[0].trim().toLowerCase() || null;
  const named = declared ? BY_TYPE.get(declared) : undefined;
  if (named) return named;
  if (declared && !VAGUE.has(declared) && /^(text\/|application\/(xhtml|xml|json))/.test(declared)) return null;
  const head = body.subarray(0, 1024);
  if (head.indexOf('%PDF-') !== -1) return 'pdf';
  if (head.subarray(0, 5).toString('latin1') === '{\\rtf') return 'rtf';
  if (head.subarray(0, 4).equals(ZIP)) {
    const inside = FORMATS.find((format) => format.inZip && body.indexOf(format.inZip) !== -1);
    if (inside) return inside.kind;
  }
  if (declared && !VAGUE.has(declared)) return null;
  const extension = /\.[a-z0-9]{1,5}$/.exec(pathOf(url))?.[0];
  return extension ? (BY_EXTENSION.get(extension) ?? null) : null;
}

/** The media type a format is answered under (the server's own may be vague). */
export function mediaTypeOf(kind: DocumentKind): string {
  return FORMATS.find((format) => format.kind === kind)!.types[0]!;
}

function pathOf(url: string): string {
  try {
    return new URL(url).pathname.toLowerCase();
  } catch {
    return '';
  }
}
