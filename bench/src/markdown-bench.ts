import TurndownService from 'turndown';
import { PAGE_CORPUS, requireInputs } from './bench-inputs';
import { MainContentReader } from '../../apps/scrape-engine/src/formats/main-content-reader';
import { MarkdownConverter } from '../../apps/scrape-engine/src/formats/markdown-converter';
import { ParsedPage } from '../../apps/scrape-engine/src/formats/parsed-page';
import { importEsm } from '@lib/runtime';
import { CORPUS_PAGE_URL, type CorpusPage, corpusMissing, measurePage, type PageQuality, readCorpus, summarise } from './markdown-quality';

/**
 * HTML → markdown over the real page corpus (corpusDirectory()): ours side by side with plain
 * turndown + GFM (what we ran before, the speed baseline), node-html-markdown 2, mdream and
 * kreuzberg's html-to-markdown (Rust, as WebAssembly), all in this process on the same pages. Quality per page
 * then averaged (see markdown-quality.ts); speed as MB/s over the corpus and the largest page's time.
 *
 * Run alone: `npm run bench:markdown` (prints the table README carries); `npm run bench` takes its
 * headline rows from here.
 */
export interface ConverterFigures {
  name: string;
  quality: ReturnType<typeof summarise>;
  failures: string[];
  mbPerSecond: number;
  largestPage: { name: string; ms: number };
  pages: PageQuality[];
}

type Convert = (html: string, url: string) => string;

export async function markdownConverters(): Promise<Array<{ name: string; convert: Convert }>> {
  const ours = new MarkdownConverter(await MainContentReader.load());
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { gfm } = require('turndown-plugin-gfm') as { gfm: TurndownService.Plugin };
  const plain = new TurndownService({ headingStyle: 'atx', codeBlockStyle: 'fenced', bulletListMarker: '-' })
    .use(gfm)
    .remove(['script', 'style', 'noscript', 'template', 'head'] as never);
  const { NodeHtmlMarkdown } = await import('node-html-markdown');
  const nhm = new NodeHtmlMarkdown();
  // mdream 0.17.1: its last pure-JavaScript release (1.x ships platform binaries, some of which the registry here lacks, which breaks npm ci).
  const mdream = await importEsm<{ htmlToMarkdown(html: string, options?: { origin?: string }): string }>('mdream');
  // kreuzberg's Rust converter as its WebAssembly build (one package; the native one is per platform).
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const kreuzberg = require('@kreuzberg/html-to-markdown-wasm/pkg/nodejs/html_to_markdown_wasm.js') as {
    convert(html: string): { content?: string };
  };
  return [
    { name: 'ours (turndown + our rules, one parse)', convert: (html, url) => ours.convert(new ParsedPage(html, url)).markdown },
    {
      name: 'ours, only_main_content',
      convert: (html, url) => ours.convert(new ParsedPage(html, url), { onlyMainContent: true }).markdown,
    },
    { name: 'plain turndown + GFM plugin', convert: (html) => plain.turndown(html) },
    { name: 'node-html-markdown 2.0.0', convert: (html) => nhm.translate(html) },
    { name: 'mdream 0.17.1 (JavaScript)', convert: (html, url) => mdream.htmlToMarkdown(html, { origin: new URL(url).origin }) },
    { name: '@kreuzberg/html-to-markdown-wasm 3.7.2 (Rust, WebAssembly)', convert: (html) => kreuzberg.convert(html).content ?? '' },
  ];
}

export function benchConverter(name: string, convert: Convert, corpus: CorpusPage[], rounds = 3): ConverterFigures {
  const speed = timeConverter(convert, corpus, rounds);
  const failures: string[] = [];
  const pages: PageQuality[] = [];
  for (const page of corpus) {
    let markdown = '';
    try {
      markdown = convert(page.source, CORPUS_PAGE_URL);
    } catch (error) {
      failures.push(`${page.name}: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`);
    }
    pages.push(measurePage(page, markdown));
  }
  return { name, quality: summarise(pages), failures, ...speed, pages };
}

/** One warm-up pass, then `rounds` timed passes over the corpus, before any quality work fills the heap. */
function timeConverter(convert: Convert, corpus: CorpusPage[], rounds: number): Pick<ConverterFigures, 'mbPerSecond' | 'largestPage'> {
  for (const page of corpus) {
    try {
      convert(page.source, CORPUS_PAGE_URL);
    } catch {
      // reported by the quality pass
    }
  }
  let bytes = 0;
  let ms = 0;
  const largest = corpus.reduce((a, b) => (b.source.length > a.source.length ? b : a));
  const largestTimes: number[] = [];
  for (let round = 0; round < rounds; round += 1) {
    for (const page of corpus) {
      const started = performance.now();
      try {
        convert(page.source, CORPUS_PAGE_URL);
      } catch {
        // reported by the quality pass
      }
      const elapsed = performance.now() - started;
      ms += elapsed;
      bytes += Buffer.byteLength(page.source);
      if (page === largest) largestTimes.push(elapsed);
    }
  }
  largestTimes.sort((a, b) => a - b);
  return {
    mbPerSecond: Math.round((bytes / 1024 / 1024 / (ms / 1000)) * 10) / 10,
    largestPage: { name: largest.name, ms: Math.round(largestTimes[Math.floor(largestTimes.length / 2)] * 10) / 10 },
  };
}

export async function benchMarkdownCorpus(rounds = 3): Promise<ConverterFigures[]> {
  const corpus = readCorpus();
  if (corpus.length === 0) return [];
  const converters = await markdownConverters();
  return converters.map(({ name, convert }) => benchConverter(name, convert, corpus, rounds));
}

export function markdownTable(figures: ConverterFigures[]): string {
  const pct = (v: number | null) => (v === null ? '—' : v.toFixed(3));
  const header =
    '| converter | 3-gram recall | headings | links | list items | tables | code blocks | leaks | raw tags | words ÷ article | MB/s | largest page (ms) | failures |';
  const rows = figures.map(
    (f) =>
      `| ${f.name} | ${pct(f.quality.recall)} | ${pct(f.quality.headings)} | ${pct(f.quality.links)} | ${pct(f.quality.listItems)} | ${pct(f.quality.tables)} | ${pct(f.quality.codeBlocks)} | ${f.quality.leaks} | ${f.quality.rawTags} | ${f.quality.wordsOverArticle.toFixed(2)} | ${f.mbPerSecond} | ${f.largestPage.ms} | ${f.failures.length} |`,
  );
  return [header, `|${' --- |'.repeat(13)}`, ...rows].join('\n');
}

/** The headline rows of `npm run bench`: our conversion's speed against plain turndown + GFM in the same run, and its quality. */
export function markdownRows(figures: ConverterFigures[]): Array<{ figure: string; value: number | null; detail: string }> {
  const ours = figures.find((f) => f.name.startsWith('ours ('));
  const plain = figures.find((f) => f.name.startsWith('plain turndown'));
  if (!ours || !plain) return [{ figure: 'HTML→markdown over the corpus', value: null, detail: corpusMissing() }];
  const q = ours.quality;
  return [
    {
      figure: 'HTML→markdown MB/s over the 130-page corpus ÷ plain turndown + GFM (goal ≥ 2)',
      value: Math.round((ours.mbPerSecond / plain.mbPerSecond) * 100) / 100,
      detail: `${ours.mbPerSecond} vs ${plain.mbPerSecond} MB/s; largest page (${ours.largestPage.name}, 1.6 MB) ${ours.largestPage.ms} ms vs ${plain.largestPage.ms} ms`,
    },
    {
      figure: 'HTML→markdown article 3-gram recall over the corpus (goal ≥ 0.99)',
      value: Math.round(q.recall * 1000) / 1000,
      detail: `headings ${q.headings?.toFixed(3)}, links ${q.links?.toFixed(3)}, list items ${q.listItems?.toFixed(3)}, tables ${q.tables?.toFixed(3)}, code blocks ${q.codeBlocks?.toFixed(3)}; ${q.leaks} leaks, ${q.rawTags} raw tags`,
    },
  ];
}

/**
 * What format=markdown adds to a scrape: the same 50 KB page scraped one at a time as html and as
 * markdown through the service, alternating so both see the same machine; the difference of p50s.
 */
export async function markdownOverHtml(
  serviceUrl: string,
  token: string,
  pageUrl: string,
  samples = 200,
): Promise<{ htmlP50Ms: number; markdownP50Ms: number; addedP50Ms: number; samples: number }> {
  const times: Record<'html' | 'markdown', number[]> = { html: [], markdown: [] };
  const once = async (format: 'html' | 'markdown') => {
    const started = performance.now();
    const res = await fetch(`${serviceUrl}/v1/sync/scrape`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ url: pageUrl, format }),
    });
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`scrape answered ${res.status}`);
    times[format].push(performance.now() - started);
  };
  for (let i = 0; i < 20; i += 1) await once(i % 2 ? 'html' : 'markdown');
  times.html.length = times.markdown.length = 0;
  for (let i = 0; i < samples; i += 1) {
    await once('html');
    await once('markdown');
  }
  const p50 = (list: number[]) => Math.round(list.sort((a, b) => a - b)[Math.floor(list.length / 2)] * 100) / 100;
  const [htmlP50Ms, markdownP50Ms] = [p50(times.html), p50(times.markdown)];
  return { htmlP50Ms, markdownP50Ms, addedP50Ms: Math.round((markdownP50Ms - htmlP50Ms) * 100) / 100, samples };
}

if (require.main === module && requireInputs('npm run bench:markdown', [PAGE_CORPUS])) {
  benchMarkdownCorpus(Number(process.env.BENCH_ROUNDS ?? 3))
    .then((figures) => {
      if (figures.length === 0) throw new Error(corpusMissing());
      console.log(markdownTable(figures));
      for (const f of figures) if (f.failures.length) console.log(`${f.name} failed on: ${f.failures.join('; ')}`);
      if (process.env.BENCH_PAGES) {
        const ours = figures[Number(process.env.BENCH_PAGES)];
        for (const p of ours.pages) console.log(JSON.stringify(p));
      }
    })
    .catch((error: unknown) => {
      console.error(error);
      process.exit(1);
    });
}
