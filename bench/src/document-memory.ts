/**
 * One PDF read by one reader in this process alone, for its time and its peak memory (the
 * documents bench runs it once per reader): `node dist/bench/src/document-memory.js <reader> <file>`
 * prints {pages, ms, peak_rss_mb}. The baseline is the process with the reader loaded and nothing read.
 */
import fs from 'node:fs';
import { readPdf } from '../../apps/scrape-engine/src/documents/pdf-document';

async function main(): Promise<void> {
  const [reader, file] = process.argv.slice(2);
  const bytes = new Uint8Array(fs.readFileSync(file!));
  const unpdf = (await import('unpdf')) as { extractText(data: Uint8Array, o: { mergePages: true }): Promise<{ totalPages: number }> };
  // Both readers loaded first: what is measured is the reading.
  await readPdf(new TextEncoder().encode('%PDF-1.4 warm'), { wanted: () => true, max: 1, deadline: Infinity }).catch(() => undefined);
  const loadedRss = process.resourceUsage().maxRSS / 1024;
  const started = performance.now();
  const pages =
    reader === 'ours'
      ? (await readPdf(bytes, { wanted: () => true, max: 10_000, deadline: Infinity })).pages.length
      : (await unpdf.extractText(bytes, { mergePages: true })).totalPages;
  const ms = Math.round(performance.now() - started);
  const peak = process.resourceUsage().maxRSS / 1024;
  console.log(JSON.stringify({ pages, ms, peak_rss_mb: Math.round(peak), loaded_rss_mb: Math.round(loadedRss) }));
}

void main();
