import type { components } from '../../../../sdk/src/generated/api';

type ScrapeRequest = components['schemas']['SyncScrapeRequest'];

/** Options given to every bare URL of a pasted or uploaded list. */
export interface SharedOptions {
  format: 'html' | 'markdown';
  browser: boolean;
}

/** What a list turned into: the requests, and the lines the console could not read (the API judges the rest). */
export interface ParsedList {
  requests: ScrapeRequest[];
  unreadable: string[];
}

function withOptions(url: string, options: SharedOptions): ScrapeRequest {
  return { url, ...(options.format === 'markdown' ? { format: 'markdown' as const } : {}), ...(options.browser ? { browser: true } : {}) };
}

/** One CSV line into fields: commas, and double quotes around a field with "" inside (RFC 4180). */
export function csvFields(line: string): string[] {
  const fields: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < line.length; i += 1) {
    const c = line[i]!;
    if (quoted) {
      if (c === '"' && line[i + 1] === '"') {
        field += '"';
        i += 1;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"' && field === '') quoted = true;
    else if (c === ',') {
      fields.push(field.trim());
      field = '';
    } else field += c;
  }
  fields.push(field.trim());
  return fields;
}

function fromJson(value: unknown, options: SharedOptions): ParsedList {
  const items = Array.isArray(value)
    ? value
    : Array.isArray((value as { requests?: unknown })?.requests)
      ? (value as { requests: unknown[] }).requests
      : null;
  if (!items) return { requests: [], unreadable: ['JSON must be an array of URLs or requests, or {"requests": [...]}.'] };
  const requests: ScrapeRequest[] = [];
  const unreadable: string[] = [];
  items.forEach((item, index) => {
    if (typeof item === 'string') requests.push(withOptions(item.trim(), options));
    else if (typeof item === 'object' && item !== null) requests.push(item as ScrapeRequest);
    else unreadable.push(`item ${index}: ${JSON.stringify(item)}`);
  });
  return { requests, unreadable };
}

/**
 * A list in any of the forms users have at hand: JSON (URLs, requests, or {requests}), CSV with a
 * header naming a url column (custom_id, format and browser columns are read too), or one URL a line.
 */
export function parseRequestList(text: string, options: SharedOptions): ParsedList {
  const trimmed = text.trim();
  if (trimmed === '') return { requests: [], unreadable: [] };
  if (trimmed.startsWith('[') || trimmed.startsWith('{')) {
    try {
      return fromJson(JSON.parse(trimmed), options);
    } catch (error) {
      return { requests: [], unreadable: [`Not valid JSON: ${(error as Error).message}`] };
    }
  }
  const lines = trimmed.split(/\r?\n/).filter((l) => l.trim() !== '');
  const header = csvFields(lines[0]!).map((h) => h.toLowerCase());
  const urlColumn = header.indexOf('url');
  if (urlColumn < 0) return { requests: lines.map((l) => withOptions(l.trim(), options)), unreadable: [] };
  const column = (name: string) => header.indexOf(name);
  const requests: ScrapeRequest[] = [];
  const unreadable: string[] = [];
  for (const [index, line] of lines.slice(1).entries()) {
    const fields = csvFields(line);
    const url = fields[urlColumn];
    if (!url) {
      unreadable.push(`line ${index + 2}: no url`);
      continue;
    }
    const request = withOptions(url, options) as ScrapeRequest & Record<string, unknown>;
    const customId = fields[column('custom_id')];
    if (column('custom_id') >= 0 && customId) request.custom_id = customId;
    const format = fields[column('format')];
    if (column('format') >= 0 && (format === 'html' || format === 'markdown')) request.format = format;
    const browser = fields[column('browser')];
    if (column('browser') >= 0 && browser) request.browser = /^(true|1|yes)$/i.test(browser);
    requests.push(request);
  }
  return { requests, unreadable };
}
