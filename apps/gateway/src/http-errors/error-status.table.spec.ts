import fs from 'node:fs';
import path from 'node:path';
import { FORMER_DOMAIN_CODES, HTTP_ERROR_TABLE, httpMappingOf } from './error-status.table';

const ROOT = path.resolve(__dirname, '../../../..');

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'generated' || entry.name === 'node_modules' ? [] : sourceFiles(full);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.spec.ts') ? [full] : [];
  });
}

/**
 * Every domain error any context can raise has its HTTP status and public error_code in the one
 * table: a code missing there would reach a client as a 500 internal_error.
 */
describe('the HTTP error table', () => {
  const raised = new Map<string, string>();
  for (const file of [...sourceFiles(path.join(ROOT, 'apps')), ...sourceFiles(path.join(ROOT, 'libs'))]) {
    for (const match of fs.readFileSync(file, 'utf8').matchAll(/readonly code(?:: [^=]+)? = '([^']+)'/g))
      raised.set(match[1], path.relative(ROOT, file));
  }

  it('finds the error classes of every context', () => {
    expect(raised.size).toBeGreaterThanOrEqual(30);
  });

  it.each([...raised.entries()])('maps %s (%s)', (code) => {
    expect(Object.keys(HTTP_ERROR_TABLE)).toContain(code);
  });

  // Decision 0036: a previous-release service, still running during a rolling upgrade, raises the
  // codes this release renamed; the client must get what it got before, never a 500.
  it.each(Object.entries(FORMER_DOMAIN_CODES))('answers the former code %s as %s does, and nothing raises it now', (former, current) => {
    expect(raised.has(former)).toBe(false);
    expect(httpMappingOf(former)).toEqual(HTTP_ERROR_TABLE[current]);
    expect(Object.keys(HTTP_ERROR_TABLE)).not.toContain(former);
  });

  it("lists no code nothing raises, except the router's not_found", () => {
    expect(Object.keys(HTTP_ERROR_TABLE).filter((code) => !raised.has(code))).toEqual(['resource.not_found']);
  });

  it('is what the error table of docs/api-reference.md lists, and it lists nothing else', () => {
    const reference = fs.readFileSync(path.join(ROOT, 'docs', 'api-reference.md'), 'utf8');
    expect(reference).toContain('| error_code | status | when |');
    const table = reference.slice(reference.indexOf('| error_code | status | when |'));
    const rows = table.slice(0, table.indexOf('\n\n')).split('\n').slice(2);
    const listed = new Set(
      rows
        .flatMap((row) => row.split('|')[1].match(/[a-z][a-z_]+/g) ?? [])
        .filter((word) => word.includes('_') || ['conflict', 'blocked'].includes(word)),
    );
    // Answered by the HTTP layer itself (parser, router) or inside the job-result 404's object detail (spec 4.5).
    const beyondTheTable = [
      'payload_too_large',
      'unsupported_media_type',
      'request_header_fields_too_large',
      'uri_too_long',
      'bad_url',
      'bad_request',
      'result_pending',
      'result_expired',
      'result_lost',
      'job_id_invalid',
      'job_cancelled',
      'validation_error',
    ];
    const mapped: string[] = Object.values(HTTP_ERROR_TABLE)
      .map((mapping) => mapping.errorCode)
      .filter((code) => code !== 'internal_error' && code !== 'result_unavailable');
    expect(mapped.filter((code) => !listed.has(code))).toEqual([]);
    expect([...listed].filter((code) => !mapped.includes(code) && !beyondTheTable.includes(code))).toEqual([]);
  });
});
