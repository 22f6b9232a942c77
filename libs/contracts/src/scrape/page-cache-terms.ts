import { ApiProperty } from '@nestjs/swagger';

/** The page cache's words every message uses (decision 0037): importing no other contract file, any of them may take these. */

/** The longest `max_age` a request may ask for, in seconds (30 days): also how long an entry is kept unused. */
export const PAGE_CACHE_MAX_AGE_SECONDS = 2_592_000;

/** The origin's validators of a stored page: what a revalidation sends back to it (RFC 9110 §13.1). */
export interface PageValidators {
  etag: string | null;
  last_modified: string | null;
}

/** The validators a response carries, read from its headers (names lower case); null when it has none. */
export function validatorsOf(headers: Record<string, string | string[] | undefined> | null | undefined): PageValidators | null {
  const first = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value) ?? null;
  const etag = first(headers?.etag);
  const lastModified = first(headers?.['last-modified']);
  return etag || lastModified ? { etag: etag || null, last_modified: lastModified || null } : null;
}

/** `cache` of a scrape response whose request carried `max_age`. */
export class PageCacheReport {
  @ApiProperty({
    enum: ['hit', 'revalidated', 'miss'],
    description: 'hit: served as stored; revalidated: the origin answered 304 to a conditional request; miss: fetched now.',
  })
  status: 'hit' | 'revalidated' | 'miss';
  @ApiProperty({
    type: 'integer',
    description: 'Seconds since the origin last gave or confirmed this content (0 when fetched or revalidated now).',
  })
  age: number;
  @ApiProperty({ description: 'When the content was fetched from the origin (ISO 8601).' })
  fetched_at: string;
  @ApiProperty({
    description: 'Whether this result was kept for the next request (never a failed or blocked one, nor one over the size limit).',
  })
  stored: boolean;
}
