import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { PAGE_CORPUS, requireInputs } from './bench-inputs';
import { CORPUS_PAGE_URL, readCorpus } from './markdown-quality';
import { MainContentReader } from '../../apps/scrape-engine/src/formats/main-content-reader';
import { MarkdownConverter } from '../../apps/scrape-engine/src/formats/markdown-converter';
import { ParsedPage } from '../../apps/scrape-engine/src/formats/parsed-page';
import { SITE_MARKDOWN_ACCEPT, isMarkdownType, siteMarkdownProblem } from '../../apps/scrape-engine/src/formats/site-markdown';
import { countTokens, type TokenizerName } from '../../apps/gateway/src/token-budget/token-count';

/**
 * What an agent's context pays for a page (issue 67, decision 0042), over the real page corpus:
 *
 * 1. Tokens per page (o200k_base and cl100k_base) as HTML, as our whole-page markdown and as our
 *    main content.
 * 2. A site that publishes its own markdown against one that does not, in one process on the same
 *    pages: a local server answers each page as HTML, and as markdown to `Accept: text/markdown`
 *    (the page's reviewed article as our converter writes it: what a site would publish). The
 *    extracted path fetches the HTML and converts it; the site path asks with the engine's Accept
 *    header and checks the answer with the engine's own rule. Bytes over the wire and time per page,
 *    both paths through the same HTTP client and server, alternated page by page.
 *
 * Run: `npm run bench:agent-reading` (PAGE_CORPUS_DIR, docs/benchmarks.md).
 */
async function main(): Promise<void> {
  if (!requireInputs('bench:agent-reading', [PAGE_CORPUS])) return;
  const corpus = readCorpus();
  const converter = new MarkdownConverter(await MainContentReader.load());
  const pages = corpus.map((page) => {
    const url = CORPUS_PAGE_URL;
    return {
      name: page.name,
      html: page.source,
      markdown: converter.convert(new ParsedPage(page.source, url)).markdown,
      main: converter.convert(new ParsedPage(page.source, url), { onlyMainContent: true }).markdown,
      published: converter.convert(new ParsedPage(page.expected, url)).markdown,
    };
  });

  process.stdout.write(`\n== tokens per page, ${pages.length} real pages ==\n`);
  process.stdout.write('| tokenizer | form | median | p90 | total |\n|---|---|---:|---:|---:|\n');
  for (const tokenizer of ['o200k_base', 'cl100k_base'] as TokenizerName[])
    for (const form of ['html', 'markdown', 'main'] as const) {
      const counts: number[] = [];
      for (const page of pages) counts.push(await countTokens(page[form], tokenizer));
      const label = { html: 'HTML', markdown: 'markdown (whole page)', main: 'markdown (main content)' }[form];
      process.stdout.write(
        `| ${tokenizer} | ${label} | ${quantile(counts, 0.5).toLocaleString('en')} | ${quantile(counts, 0.9).toLocaleString('en')} | ${sum(counts).toLocaleString('en')} |\n`,
      );
    }

  const byName = new Map(pages.map((page) => [page.name, page]));
  const server = http.createServer((req, res) => {
    const page = byName.get(decodeURIComponent((req.url ?? '/').slice(1)));
    if (!page) return res.writeHead(404).end();
    if (/text\/markdown/.test(req.headers.accept ?? ''))
      return res.writeHead(200, { 'content-type': 'text/markdown; charset=utf-8', vary: 'Accept' }).end(page.published);
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', vary: 'Accept' }).end(page.html);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  const rounds = 3;
  const site = { bytes: 0, ms: [] as number[], refused: 0 };
  const extracted = { bytes: 0, ms: [] as number[] };
  try {
    for (let round = 0; round < rounds; round += 1)
      for (const page of pages) {
        const url = base + encodeURIComponent(page.name);
        // Alternated page by page, the order flipped each round: neither path gets the warm moments.
        const order = round % 2 === 0 ? [readSite, readExtracted] : [readExtracted, readSite];
        for (const read of order) await read(url);
      }
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }

  async function readSite(url: string): Promise<void> {
    const started = performance.now();
    const answer = await fetch(url, { headers: { accept: SITE_MARKDOWN_ACCEPT } });
    const text = await answer.text();
    const ok = isMarkdownType(answer.headers.get('content-type')) && siteMarkdownProblem(text) === null;
    site.ms.push(performance.now() - started);
    site.bytes += Buffer.byteLength(text);
    if (!ok) site.refused += 1;
  }

  async function readExtracted(url: string): Promise<void> {
    const started = performance.now();
    const answer = await fetch(url, { headers: { accept: 'text/html' } });
    const html = await answer.text();
    converter.convert(new ParsedPage(html, url));
    extracted.ms.push(performance.now() - started);
    extracted.bytes += Buffer.byteLength(html);
  }

  const perPage = (bytes: number) => Math.round(bytes / (pages.length * rounds));
  process.stdout.write(`\n== the site's own markdown vs extraction, ${pages.length} pages × ${rounds} rounds, one process ==\n`);
  process.stdout.write('| path | bytes per page (mean) | ms per page (median) | ms per page (p90) |\n|---|---:|---:|---:|\n');
  process.stdout.write(
    `| source: site (Accept: text/markdown, checked) | ${perPage(site.bytes).toLocaleString('en')} | ${quantile(site.ms, 0.5).toFixed(2)} | ${quantile(site.ms, 0.9).toFixed(2)} |\n`,
  );
  process.stdout.write(
    `| source: extracted (HTML fetched and converted) | ${perPage(extracted.bytes).toLocaleString('en')} | ${quantile(extracted.ms, 0.5).toFixed(2)} | ${quantile(extracted.ms, 0.9).toFixed(2)} |\n`,
  );
  process.stdout.write(
    `site ÷ extracted: bytes ${(site.bytes / extracted.bytes).toFixed(3)}, median time ${(quantile(site.ms, 0.5) / quantile(extracted.ms, 0.5)).toFixed(3)}; site answers refused by the markdown check: ${site.refused}\n`,
  );
}

function quantile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
}

function sum(values: number[]): number {
  return values.reduce((total, value) => total + value, 0);
}

void main();
