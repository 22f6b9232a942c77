import { SaxesParser } from 'saxes';
import zlib from 'node:zlib';
import { promisify } from 'node:util';

const gunzip = promisify(zlib.gunzip);

/** The sitemap protocol's own bounds: 50,000 URLs and 50 MB (uncompressed) per file. */
export const SITEMAP_MAX_URLS = 50_000;
export const SITEMAP_MAX_BYTES = 50 * 1024 * 1024;

export interface SitemapDocument {
  kind: 'urlset' | 'index';
  /** The `<loc>`s in order (raw text, trimmed), at most SITEMAP_MAX_URLS. */
  locs: string[];
  /** More `<loc>`s than SITEMAP_MAX_URLS were listed; the rest were not read. */
  overLimit: boolean;
}

/** Why a sitemap yielded nothing (SitemapReport.outcome). */
export class UnreadableSitemap extends Error {
  constructor(
    readonly outcome: 'too_large' | 'malformed',
    message: string,
  ) {
    super(message);
  }
}

/**
 * Reads one sitemap file's bytes (HTTP content-encoding already removed): a gzip member is inflated
 * by zlib with an output limit (a bomb stops at SITEMAP_MAX_BYTES, whatever its ratio); XML is read
 * by saxes as a stream of events, keeping only `<loc>` texts of `<url>` or `<sitemap>` (decision
 * 0023); a document type declaration is refused outright, so no entity is ever defined, let alone
 * expanded. A plain-text sitemap (one URL per line, also in the protocol) is read line by line.
 */
export async function readSitemapDocument(raw: Buffer): Promise<SitemapDocument> {
  let bytes = raw;
  if (raw.length >= 2 && raw[0] === 0x1f && raw[1] === 0x8b) {
    try {
      bytes = await gunzip(raw, { maxOutputLength: SITEMAP_MAX_BYTES });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE' || error instanceof RangeError)
        throw new UnreadableSitemap('too_large', `inflates past ${SITEMAP_MAX_BYTES / 1024 / 1024} MB`);
      throw new UnreadableSitemap('malformed', `not a readable gzip member (${(error as Error).message})`);
    }
  }
  if (bytes.length > SITEMAP_MAX_BYTES) throw new UnreadableSitemap('too_large', `larger than ${SITEMAP_MAX_BYTES / 1024 / 1024} MB`);
  const text = bytes.toString('utf8').replace(/^\uFEFF/, '');
  const start = text.trimStart();
  if (!start.startsWith('<')) return readTextSitemap(start);
  return readXmlSitemap(text);
}

function readTextSitemap(text: string): SitemapDocument {
  const locs: string[] = [];
  let overLimit = false;
  for (const line of text.split(/\r?\n/)) {
    const url = line.trim();
    if (!/^https?:\/\//i.test(url)) {
      if (url) throw new UnreadableSitemap('malformed', 'neither XML nor a list of URLs');
      continue;
    }
    if (locs.length >= SITEMAP_MAX_URLS) {
      overLimit = true;
      break;
    }
    locs.push(url);
  }
  return { kind: 'urlset', locs, overLimit };
}

function readXmlSitemap(text: string): SitemapDocument {
  const parser = new SaxesParser({ xmlns: false, position: false });
  const locs: string[] = [];
  let kind: SitemapDocument['kind'] | null = null;
  let overLimit = false;
  let depth = 0;
  let inEntry = false;
  let inLoc = false;
  let loc = '';
  let failure: UnreadableSitemap | null = null;
  const localName = (name: string) => name.slice(name.indexOf(':') + 1).toLowerCase();
  parser.on('doctype', () => {
    failure ??= new UnreadableSitemap('malformed', 'a document type declaration (sitemaps have none; entity definitions are refused)');
  });
  parser.on('opentag', (tag) => {
    depth += 1;
    const name = localName(tag.name);
    if (depth === 1) {
      if (name === 'urlset') kind = 'urlset';
      else if (name === 'sitemapindex') kind = 'index';
      else failure ??= new UnreadableSitemap('malformed', `the root element is <${tag.name}>, not <urlset> or <sitemapindex>`);
    } else if (depth === 2 && (name === 'url' || name === 'sitemap')) inEntry = true;
    else if (depth === 3 && inEntry && name === 'loc') {
      inLoc = true;
      loc = '';
    }
  });
  parser.on('text', (chunk) => {
    if (inLoc && loc.length < 8192) loc += chunk;
  });
  parser.on('cdata', (chunk) => {
    if (inLoc && loc.length < 8192) loc += chunk;
  });
  parser.on('closetag', () => {
    if (depth === 3 && inLoc) {
      inLoc = false;
      const value = loc.trim();
      if (value) {
        if (locs.length < SITEMAP_MAX_URLS) locs.push(value);
        else overLimit = true;
      }
    } else if (depth === 2) inEntry = false;
    depth -= 1;
  });
  parser.on('error', (error) => {
    failure ??= new UnreadableSitemap('malformed', `not well-formed XML (${error.message.split('\n')[0]})`);
  });
  // Fed in slices so a refusal (a DTD, a wrong root) stops the parse early rather than at the end.
  const SLICE = 256 * 1024;
  try {
    for (let offset = 0; offset < text.length && !failure; offset += SLICE) parser.write(text.slice(offset, offset + SLICE));
    if (!failure) parser.close();
  } catch (error) {
    failure ??= new UnreadableSitemap('malformed', `not well-formed XML (${(error as Error).message.split('\n')[0]})`);
  }
  if (failure) throw failure;
  if (!kind) throw new UnreadableSitemap('malformed', 'no root element');
  return { kind, locs, overLimit };
}
