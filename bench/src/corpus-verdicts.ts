import { visibleTextOf } from '@lib/page-evidence';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { ContentValidator } from '../../apps/scrape-engine/src/content-validation/content-validator';
import { MainContentReader } from '../../apps/scrape-engine/src/formats/main-content-reader';
import { MarkdownConverter } from '../../apps/scrape-engine/src/formats/markdown-converter';
import { ParsedPage } from '../../apps/scrape-engine/src/formats/parsed-page';
import { corpusDirectory, corpusPageNames, readCorpusPage } from './markdown-quality';

/**
 * The simple-mode verdict of every real page we have (issue 36): what a scrape without a browser
 * says about each page — usable or why not — and whether it delivers the content, beside what the
 * page holds. Two kinds of wrong answer are counted:
 * - a false block: a page whose HTML carries its content judged blocked, a CAPTCHA, a challenge or
 *   an empty shell;
 * - a false empty success: a page judged usable whose markdown holds (almost) nothing, while its
 *   reviewed main content (WCXB's ground truth, the page corpus's article) does not.
 */
export interface CorpusPageInput {
  /** `wcxb/0503`, `pages/ars-1`. */
  id: string;
  /**
   * Reads the page from disk when it is judged: 1,627 pages held at once were the bench's peak
   * memory (1.7 GB for this row alone), one at a time they are one page's.
   */
  load(): CorpusPageContent;
}

export interface CorpusPageContent {
  html: string;
  /** Characters of the page's reviewed main content (0 where the reviewers found none in it). */
  expectedText: number;
}

export interface PageVerdict {
  id: string;
  verdict: string;
  readableText: number;
  markdownText: number;
  expectedText: number;
  ruleHits: string[];
  wrong: 'false_block' | 'false_empty_success' | null;
}

// A page whose markdown holds less than this is empty; one whose HTML has this much readable text carries content.
const EMPTY_MARKDOWN = 50;
const CONTENT_TEXT = 200;

/** WCXB's split directory (html/, ground-truth/): WCXB_DIR, or by default ../shared/corpus/wcxb-dev/dev beside the project. */
export function wcxbDirectory(): string {
  return path.resolve(process.cwd(), process.env.WCXB_DIR ?? '../shared/corpus/wcxb-dev/dev');
}

export function readWcxb(dir = wcxbDirectory()): CorpusPageInput[] {
  const htmlDir = path.join(dir, 'html');
  if (!fs.existsSync(htmlDir)) return [];
  return fs
    .readdirSync(htmlDir)
    .filter((name) => name.endsWith('.html.gz'))
    .sort()
    .map((name) => {
      const id = name.replace(/\.html\.gz$/, '');
      return {
        id: `wcxb/${id}`,
        load: () => {
          const truth = JSON.parse(fs.readFileSync(path.join(dir, 'ground-truth', `${id}.json`), 'utf8')) as {
            ground_truth: { main_content?: string } | string;
          };
          return {
            html: zlib.gunzipSync(fs.readFileSync(path.join(htmlDir, name))).toString('utf8'),
            expectedText: mainContentOf(truth.ground_truth).length,
          };
        },
      };
    });
}

export function readPageCorpus(dir = corpusDirectory()): CorpusPageInput[] {
  return corpusPageNames(dir).map((name) => ({
    id: `pages/${name}`,
    load: () => {
      const page = readCorpusPage(dir, name);
      return { html: page.source, expectedText: visibleTextOf(page.expected).length };
    },
  }));
}

// The split stores its ground truth as an object, a few of its files as that object's Python repr.
function mainContentOf(truth: { main_content?: string } | string): string {
  if (typeof truth !== 'string') return truth.main_content ?? '';
  const match = /'main_content':\s*(['"])([\s\S]*?)\1,\s*'/.exec(truth);
  return match?.[2] ?? '';
}

/**
 * Judges every page as a simple-mode scrape would (a 200 answer, text/html, no headers) and
 * converts it to markdown: one page read at a time, the event loop let through between pages (so
 * the bench's memory sampler sees this row as it runs, not only before and after it).
 */
export async function judgeCorpus(pages: CorpusPageInput[]): Promise<PageVerdict[]> {
  const validator = new ContentValidator();
  const converter = new MarkdownConverter(await MainContentReader.load());
  const verdicts: PageVerdict[] = [];
  for (const input of pages) {
    await new Promise((resolve) => setImmediate(resolve));
    const page = { id: input.id, ...input.load() };
    const verdict = validator.validate({ statusCode: 200, headers: {}, contentType: 'text/html; charset=utf-8', body: page.html });
    const markdown = converter.convert(new ParsedPage(page.html, 'https://corpus.example/', { scriptsRan: false })).markdown;
    const markdownText = markdown.replace(/\s+/g, ' ').trim().length;
    const name = verdict.blockReason ?? 'usable';
    const wrong =
      !verdict.usable && verdict.visibleTextLength >= CONTENT_TEXT
        ? 'false_block'
        : verdict.usable && markdownText < EMPTY_MARKDOWN && page.expectedText >= CONTENT_TEXT
          ? 'false_empty_success'
          : null;
    verdicts.push({
      id: page.id,
      verdict: name,
      readableText: verdict.visibleTextLength,
      markdownText,
      expectedText: page.expectedText,
      ruleHits: verdict.ruleHits,
      wrong,
    });
  }
  return verdicts;
}

/** Pages per verdict, in a stable order. */
export function countsOf(verdicts: PageVerdict[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const v of [...verdicts].sort((a, b) => a.verdict.localeCompare(b.verdict))) counts[v.verdict] = (counts[v.verdict] ?? 0) + 1;
  return counts;
}

/** The recorded verdicts (id → verdict) of a rules version, and the pages whose verdict differs now. */
export function changesSince(
  recorded: Record<string, string>,
  verdicts: PageVerdict[],
): Array<{ id: string; was: string | null; now: string }> {
  return verdicts.filter((v) => recorded[v.id] !== v.verdict).map((v) => ({ id: v.id, was: recorded[v.id] ?? null, now: v.verdict }));
}

/**
 * `npm run bench` rows: pages per verdict over both whole corpora, the wrong ones (goal 0), and the
 * pages whose verdict moved since the recorded rules version. BENCH_RECORD_VERDICTS=1 records
 * this run's verdicts as the current version's.
 */
export async function corpusVerdictRows(rulesVersion: string): Promise<Array<{ figure: string; value: number | null; detail: string }>> {
  const pages = [...readWcxb(), ...readPageCorpus()];
  if (pages.length === 0)
    return [
      {
        figure: 'simple-mode verdicts of the real corpora',
        value: null,
        detail: `corpora not found at ${wcxbDirectory()} and ${corpusDirectory()} (set WCXB_DIR, PAGE_CORPUS_DIR)`,
      },
    ];
  const verdicts = await judgeCorpus(pages);
  const recordedFile = recordedVerdictsPath();
  const recorded = fs.existsSync(recordedFile)
    ? (JSON.parse(fs.readFileSync(recordedFile, 'utf8')) as { rules_version: string; not_usable: Record<string, string> })
    : { rules_version: 'none', not_usable: {} };
  const changes = changesSince(Object.fromEntries(pages.map((p) => [p.id, recorded.not_usable[p.id] ?? 'usable'])), verdicts);
  if (process.env.BENCH_RECORD_VERDICTS === '1') {
    const notUsable = Object.fromEntries(verdicts.filter((v) => v.verdict !== 'usable').map((v) => [v.id, v.verdict]));
    fs.writeFileSync(recordedFile, `${JSON.stringify({ rules_version: rulesVersion, not_usable: notUsable }, null, 2)}\n`);
  }
  const wrong = verdicts.filter((v) => v.wrong);
  return [
    {
      figure: `simple-mode verdicts of ${pages.length} real pages (WCXB dev + page corpus): false blocks and false empty successes (goal 0)`,
      value: wrong.length,
      detail: `${JSON.stringify(countsOf(verdicts))} under ${rulesVersion}${wrong.length ? `; wrong: ${wrong.map((v) => `${v.id} ${v.wrong}`).join(', ')}` : ''}`,
    },
    {
      figure: `simple-mode verdicts changed since the recorded rules version (${recorded.rules_version})`,
      value: changes.length,
      detail: changes.length ? changes.map((c) => `${c.id}: ${c.was} → ${c.now}`).join(', ') : 'none',
    },
  ];
}

/** Where the verdicts of the current rules version are recorded (test/corpus/corpus-verdicts.spec.ts holds pages to them). */
function recordedVerdictsPath(): string {
  return path.resolve(process.cwd(), 'bench/corpus-verdicts.json');
}
