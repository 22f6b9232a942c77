import { importEsm } from '@lib/runtime';
import { requireInputs, WCXB_SPLIT } from './bench-inputs';
import { visibleTextOf } from '@lib/page-evidence';
import { Readability } from '@mozilla/readability';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { MainContentReader } from '../../apps/scrape-engine/src/formats/main-content-reader';
import { MarkdownConverter } from '../../apps/scrape-engine/src/formats/markdown-converter';
import { ParsedPage } from '../../apps/scrape-engine/src/formats/parsed-page';
import { wcxbDirectory } from './corpus-verdicts';
import { markdownProse } from './markdown-quality';

/**
 * Main content on WCXB (issue 37), scored as the benchmark's own evaluate.py scores it: word-level
 * precision, recall and F1 of the extracted plain text against the reviewed main content (words are
 * Python's `\w+`, lower-cased), and the share of "with" snippets found and "without" (boilerplate)
 * snippets leaked; averaged per page, overall and per page type. Ours (only_main_content markdown,
 * as plain text) beside Readability.js and Defuddle over the same DOM library, and full-page
 * markdown as the speed baseline, all in this process on the same pages.
 *
 * `npm run bench:main-content [-- --split dev] [--limit N] [--type forum] [--only ours,defuddle] [--json out.json]`;
 * WCXB_DIR names the development split's directory as for `npm run bench` (its parent holds
 * evaluate.py and the other splits). On a whole split, when python3 is on the PATH, our
 * predictions are also scored by the benchmark's evaluate.py and its overall F1 is printed beside ours.
 */
export interface WcxbPage {
  id: string;
  type: string;
  html: string;
  url: string;
  truth: { main_content: string; with: string[]; without: string[] };
}

export interface PageScore {
  precision: number;
  recall: number;
  f1: number;
  withRate: number;
  withoutRate: number;
}

export interface ExtractorFigures {
  name: string;
  overall: PageScore & { pages: number };
  byType: Record<string, PageScore & { pages: number }>;
  pagesPerSecond: number;
  failures: number;
  predictions: Record<string, string>;
}

type Extract = (page: WcxbPage) => string | Promise<string>;

export const PAGE_TYPES = ['article', 'forum', 'product', 'collection', 'listing', 'documentation', 'service'] as const;

/** The benchmark's directory (README, evaluate.py, dev/): the parent of WCXB_DIR, the split directory `npm run bench` reads. */
export function wcxbRoot(): string {
  return path.dirname(wcxbDirectory());
}

/** The pages of a split with their ground truth, optionally one type, at most `limit` (evenly spread over the split). */
export function readWcxbSplit(options: { root?: string; split?: string; limit?: number; type?: string } = {}): WcxbPage[] {
  const dir = path.join(options.root ?? wcxbRoot(), options.split ?? 'dev');
  const htmlDir = path.join(dir, 'html');
  if (!fs.existsSync(htmlDir)) return [];
  let ids = fs
    .readdirSync(htmlDir)
    .filter((name) => name.endsWith('.html.gz'))
    .map((name) => name.replace(/\.html\.gz$/, ''))
    .sort();
  const pages: WcxbPage[] = [];
  const truthOf = (id: string) => JSON.parse(fs.readFileSync(path.join(dir, 'ground-truth', `${id}.json`), 'utf8')) as GroundTruthFile;
  if (options.type) ids = ids.filter((id) => pageTypeOf(truthOf(id)) === options.type);
  if (options.limit && options.limit < ids.length) {
    const step = ids.length / options.limit;
    ids = Array.from({ length: options.limit }, (_, i) => ids[Math.floor(i * step)]!);
  }
  for (const id of ids) {
    const file = truthOf(id);
    const truth = file.ground_truth;
    // evaluate.py skips a file whose ground truth is not an object; so do we.
    if (!truth || typeof truth !== 'object') continue;
    pages.push({
      id,
      type: pageTypeOf(file),
      url: file.url ?? 'https://wcxb.example/',
      html: zlib.gunzipSync(fs.readFileSync(path.join(htmlDir, `${id}.html.gz`))).toString('utf8'),
      truth: { main_content: truth.main_content ?? '', with: truth.with ?? [], without: truth.without ?? [] },
    });
  }
  return pages;
}

interface GroundTruthFile {
  url?: string;
  ground_truth?: { main_content?: string; with?: string[]; without?: string[] } | string;
  _internal?: { page_type?: { primary?: string } | string };
}

function pageTypeOf(file: GroundTruthFile): string {
  const pt = file._internal?.page_type;
  const primary = typeof pt === 'string' ? pt : (pt?.primary ?? 'article');
  return primary === 'category' ? 'collection' : primary;
}

/** evaluate.py's tokenize: `re.findall(r'\w+', text.lower())` (Python's \w: letters, digits, underscore). */
export function wcxbTokens(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}_]+/gu) ?? [];
}

/** evaluate.py's word_f1 and snippet_check, for one page. */
export function scorePage(predicted: string, truth: WcxbPage['truth']): PageScore {
  const pred = wcxbTokens(predicted);
  const ref = wcxbTokens(truth.main_content);
  let precision: number;
  let recall: number;
  let f1: number;
  if (ref.length === 0) [precision, recall, f1] = pred.length === 0 ? [1, 1, 1] : [0, 0, 0];
  else if (pred.length === 0) [precision, recall, f1] = [0, 0, 0];
  else {
    const counts = new Map<string, number>();
    for (const token of ref) counts.set(token, (counts.get(token) ?? 0) + 1);
    let overlap = 0;
    for (const token of pred) {
      const left = counts.get(token) ?? 0;
      if (left > 0) {
        overlap += 1;
        counts.set(token, left - 1);
      }
    }
    precision = overlap / pred.length;
    recall = overlap / ref.length;
    f1 = precision + recall > 0 ? (2 * precision * recall) / (precision + recall) : 0;
  }
  const lower = predicted.toLowerCase();
  const rate = (snippets: string[]) =>
    snippets.length === 0 ? 1 : snippets.filter((s) => lower.includes(s.toLowerCase())).length / snippets.length;
  return { precision, recall, f1, withRate: rate(truth.with), withoutRate: rate(truth.without) };
}

/** Scores averaged per page, as evaluate.py averages them. */
export function meanScore(scores: PageScore[]): PageScore & { pages: number } {
  const n = Math.max(1, scores.length);
  const sum = (key: keyof PageScore) => scores.reduce((total, s) => total + s[key], 0) / n;
  return {
    pages: scores.length,
    precision: sum('precision'),
    recall: sum('recall'),
    f1: sum('f1'),
    withRate: sum('withRate'),
    withoutRate: sum('withoutRate'),
  };
}

/** The extractors compared: ours, full-page markdown (the speed baseline), Readability.js and Defuddle. */
export async function mainContentExtractors(): Promise<Array<{ name: string; extract: Extract }>> {
  const converter = new MarkdownConverter(await MainContentReader.load());
  const { parseHTML } = await importEsm<{ parseHTML(html: string): { document: Document } }>('linkedom');
  const defuddle = await importEsm<{ Defuddle(document: Document, url: string, options?: object): Promise<{ content: string }> }>(
    'defuddle/node',
  );
  const textOfHtml = (html: string) => visibleTextOf(html);
  return [
    {
      name: 'Readability in our converter (before)',
      extract: (page) =>
        markdownProse(
          converter.convert(new ParsedPage(page.html, page.url, { scriptsRan: false }), {
            onlyMainContent: true,
            mainContentEngine: 'readability',
          }).markdown,
        ),
    },
    {
      // The shipped model trained on WCXB's dev split: on dev this row is in-sample (main() says so).
      name: 'ours (only_main_content)',
      extract: (page) =>
        markdownProse(converter.convert(new ParsedPage(page.html, page.url, { scriptsRan: false }), { onlyMainContent: true }).markdown),
    },
    {
      name: 'ours, the rules alone (no model)',
      extract: (page) =>
        markdownProse(
          converter.convert(new ParsedPage(page.html, page.url, { scriptsRan: false }), { onlyMainContent: true, model: null }).markdown,
        ),
    },
    {
      name: 'full-page markdown',
      extract: (page) =>
        markdownProse(converter.convert(new ParsedPage(page.html, page.url, { scriptsRan: false }), { onlyMainContent: false }).markdown),
    },
    {
      name: 'Readability.js 0.6 (linkedom)',
      extract: (page) => {
        const { document } = parseHTML(page.html);
        const article = new Readability(document).parse();
        return article?.content ? textOfHtml(article.content) : '';
      },
    },
    {
      name: 'Defuddle 0.19 (linkedom)',
      extract: async (page) => {
        const { document } = parseHTML(page.html);
        // Defuddle logs what it could not parse (and then carries on): kept out of the table.
        const log = console.error;
        console.error = () => undefined;
        try {
          const result = await defuddle.Defuddle(document, page.url);
          return textOfHtml(result.content ?? '');
        } finally {
          console.error = log;
        }
      },
    },
  ];
}

export async function benchMainContent(pages: WcxbPage[], only?: string[]): Promise<ExtractorFigures[]> {
  const figures: ExtractorFigures[] = [];
  for (const { name, extract } of await mainContentExtractors()) {
    if (only && !only.some((o) => name.toLowerCase().startsWith(o.toLowerCase()))) continue;
    const scores: Array<PageScore & { type: string }> = [];
    const predictions: Record<string, string> = {};
    let failures = 0;
    let busyMs = 0;
    for (const page of pages) {
      let text = '';
      const started = performance.now();
      try {
        text = await extract(page);
      } catch {
        failures += 1;
      }
      busyMs += performance.now() - started;
      predictions[page.id] = text;
      scores.push({ ...scorePage(text, page.truth), type: page.type });
    }
    const byType: ExtractorFigures['byType'] = {};
    for (const type of PAGE_TYPES) {
      const ofType = scores.filter((s) => s.type === type);
      if (ofType.length > 0) byType[type] = meanScore(ofType);
    }
    figures.push({ name, overall: meanScore(scores), byType, pagesPerSecond: pages.length / (busyMs / 1000), failures, predictions });
  }
  return figures;
}

/** The markdown table README and the decision carry: F1 overall and per type, snippet rates, pages/s. */
export function mainContentTable(figures: ExtractorFigures[]): string {
  const types = PAGE_TYPES.filter((t) => figures.some((f) => f.byType[t]));
  const head = `| extractor | overall F1 (${figures[0]?.overall.pages ?? 0}) | ${types.map((t) => `${t} (${figures[0]?.byType[t]?.pages ?? 0})`).join(' | ')} | with | without | pages/s |`;
  const rule = `|${'---|'.repeat(types.length + 5)}`;
  const rows = figures.map(
    (f) =>
      `| ${f.name} | ${f.overall.f1.toFixed(3)} | ${types.map((t) => f.byType[t]?.f1.toFixed(3) ?? '—').join(' | ')} | ${(f.overall.withRate * 100).toFixed(1)}% | ${(f.overall.withoutRate * 100).toFixed(1)}% | ${f.pagesPerSecond.toFixed(1)} |`,
  );
  return [head, rule, ...rows].join('\n');
}

/** evaluate.py's overall F1 for one extractor's predictions (whole split only), or null without python3. */
export function officialF1(predictions: Record<string, string>, split: string): number | null {
  const script = path.join(wcxbRoot(), 'evaluate.py');
  if (!fs.existsSync(script)) return null;
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'wcxb-')), 'predictions.json');
  fs.writeFileSync(file, JSON.stringify(predictions));
  const run = spawnSync('python3', [script, '--split', split, '--results', file], { encoding: 'utf8' });
  fs.rmSync(path.dirname(file), { recursive: true, force: true });
  const match = /F1:\s+([\d.]+)/.exec(run.stdout ?? '');
  return match ? Number(match[1]) : null;
}

function argument(name: string): string | undefined {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 ? process.argv[at + 1] : undefined;
}

async function main(): Promise<void> {
  if (!requireInputs('npm run bench:main-content', [WCXB_SPLIT])) return;
  const split = argument('split') ?? 'dev';
  const limit = argument('limit') ? Number(argument('limit')) : undefined;
  const pages = readWcxbSplit({ split, limit, type: argument('type') });
  if (pages.length === 0) {
    process.stdout.write(`No WCXB pages under ${path.join(wcxbRoot(), split)}: set WCXB_DIR to the benchmark's dev split directory.\n`);
    process.exitCode = 1;
    return;
  }
  const only = argument('only')?.split(',');
  const figures = await benchMainContent(pages, only);
  process.stdout.write(`WCXB ${split}: ${pages.length} pages\n\n${mainContentTable(figures)}\n`);
  if (split === 'dev')
    process.stdout.write(
      '\nThe shipped main-content model trained on this split: "ours (only_main_content)" is in-sample here, not a measure.' +
        ' Its cross-validated figures (every page scored by a model that never saw its site) are in docs/main-content-model.md (npm run train:main-content).\n',
    );
  if (!limit && !argument('type')) {
    for (const f of figures.filter((x) => x.name.startsWith('ours'))) {
      const official = officialF1(f.predictions, split);
      if (official !== null)
        process.stdout.write(`\n${f.name}: evaluate.py overall F1 ${official.toFixed(4)} (ours: ${f.overall.f1.toFixed(4)})\n`);
    }
  }
  const out = argument('json');
  if (out) {
    fs.writeFileSync(
      out,
      JSON.stringify(
        figures.map(({ predictions: _, ...rest }) => rest),
        null,
        2,
      ),
    );
  }
}

if (require.main === module) void main();
