import fs from 'node:fs';
import path from 'node:path';
import { MainContentModel, type MainContentModelFile } from '../../apps/scrape-engine/src/formats/block-model';
import { BLOCK_FEATURES, contentBlocksOf, PAGE_FEATURES } from '../../apps/scrape-engine/src/formats/content-blocks';
import { MainContentReader } from '../../apps/scrape-engine/src/formats/main-content-reader';
import { locateMainContent, PAGE_KINDS } from '../../apps/scrape-engine/src/formats/main-content-locator';
import { keptTooLittle, MarkdownConverter } from '../../apps/scrape-engine/src/formats/markdown-converter';
import { MARKDOWN_RULES } from '../../apps/scrape-engine/src/formats/markdown-rules';
import { ParsedPage } from '../../apps/scrape-engine/src/formats/parsed-page';
import { importEsm } from '@lib/runtime';
import { visibleTextOf } from '@lib/page-evidence';
import { Readability } from '@mozilla/readability';
import { PAGE_CORPUS, requireInputs, WCXB_SPLIT } from './bench-inputs';
import { meanScore as mean, PAGE_TYPES, type PageScore, readWcxbSplit, scorePage, wcxbTokens, type WcxbPage } from './main-content-bench';
import { CORPUS_PAGE_URL, markdownProse, readCorpus } from './markdown-quality';

/**
 * The main-content model's data and its cross-validated score (decision 0041), driven by
 * scripts/train-main-content.sh:
 *
 * - `features --out DIR`: every WCXB dev page cut into blocks (content-blocks.ts, the code the
 *   engine runs), each block's features and its label, written as DIR/blocks.csv. The label is how
 *   much of the block the page's reviewed main content holds: the share of the block's word
 *   trigrams (its words, for a block of one or two words) found in the ground truth's.
 * - `score --folds DIR`: each page converted with the model of the fold that did not train on its
 *   site (DIR/fold-N.json, DIR/folds.json), through the converter the engine runs, and scored as
 *   WCXB's evaluate.py scores it; the locator's rules alone scored beside it in the same run.
 */

interface PageRows {
  id: string;
  site: string;
  type: string;
}

/** The site a page belongs to, for folds that keep a site's pages together: its host without www. */
export function siteOf(url: string): string {
  try {
    return new URL(url).hostname.replace(/^www\d*\./, '');
  } catch {
    return url;
  }
}

/** n-grams of a token list, as strings. */
function grams(tokens: string[], n: number): string[] {
  const out: string[] = [];
  for (let i = 0; i + n <= tokens.length; i += 1) out.push(tokens.slice(i, i + n).join(' '));
  return out;
}

/** The share of a block's words the ground truth holds, by word trigrams (by words for a short block). */
export function labelOf(blockText: string, truth: { trigrams: Set<string>; words: Set<string>; bigrams: Set<string> }): number {
  const tokens = wcxbTokens(blockText);
  if (tokens.length === 0) return 0;
  if (tokens.length === 1) return truth.words.has(tokens[0]!) ? 1 : 0;
  if (tokens.length === 2) return truth.bigrams.has(tokens.join(' ')) ? 1 : 0;
  const own = grams(tokens, 3);
  return own.filter((g) => truth.trigrams.has(g)).length / own.length;
}

function truthGrams(text: string): { trigrams: Set<string>; words: Set<string>; bigrams: Set<string> } {
  const tokens = wcxbTokens(text);
  return { trigrams: new Set(grams(tokens, 3)), bigrams: new Set(grams(tokens, 2)), words: new Set(tokens) };
}

function writeFeatures(pages: WcxbPage[], out: string): void {
  fs.mkdirSync(out, { recursive: true });
  const file = fs.openSync(path.join(out, 'blocks.csv'), 'w');
  fs.writeSync(file, ['page', 'site', 'type', 'tokens', 'page_tokens', 'label', ...BLOCK_FEATURES].join(',') + '\n');
  // The page-type probabilities at the end of each block's features are written 0 here: the trainer fills them in from its page-type classifiers.
  const pageFile = fs.openSync(path.join(out, 'pages.csv'), 'w');
  fs.writeSync(pageFile, ['page', 'site', 'type', 'empty', ...PAGE_FEATURES].join(',') + '\n');
  const index: PageRows[] = [];
  let rows = 0;
  for (const page of pages) {
    const parsed = new ParsedPage(page.html, page.url, { scriptsRan: false });
    const located = locateMainContent(parsed);
    const fallback = located === null || located.wholePage || keptTooLittle(located);
    const { blocks, page: pageFeatures } = contentBlocksOf(parsed.body, located, fallback, page.url, null);
    // A page whose reviewed main content is empty (a bare grid, a login wall): the no-main-content class.
    const empty = wcxbTokens(page.truth.main_content).length === 0 ? 1 : 0;
    if (blocks.length > 0)
      fs.writeSync(pageFile, [page.id, JSON.stringify(siteOf(page.url)), page.type, empty, ...pageFeatures].join(',') + '\n');
    const truth = truthGrams(page.truth.main_content);
    const site = siteOf(page.url);
    index.push({ id: page.id, site, type: page.type });
    const pageTokens = blocks.reduce((sum, b) => sum + wcxbTokens(b.text).length, 0);
    const lines: string[] = [];
    for (const block of blocks) {
      const tokens = wcxbTokens(block.text).length;
      if (tokens === 0) continue;
      lines.push([page.id, JSON.stringify(site), page.type, tokens, pageTokens, labelOf(block.text, truth), ...block.features].join(','));
    }
    if (lines.length > 0) fs.writeSync(file, lines.join('\n') + '\n');
    rows += lines.length;
  }
  fs.closeSync(file);
  fs.closeSync(pageFile);
  fs.writeFileSync(path.join(out, 'pages.json'), JSON.stringify(index));
  process.stdout.write(`${pages.length} pages, ${rows} blocks, ${BLOCK_FEATURES.length} features → ${out}/blocks.csv\n`);
}

interface Figures {
  name: string;
  overall: PageScore & { pages: number };
  byType: Record<string, PageScore & { pages: number }>;
  /** The converter's time for a parsed page, and the median over pages of what it adds to the rules' time on the same page. */
  msPerPage: { p50: number; added: number };
}

async function scoreFolds(pages: WcxbPage[], dir: string): Promise<Figures[]> {
  const folds = JSON.parse(fs.readFileSync(path.join(dir, 'folds.json'), 'utf8')) as Record<string, number>;
  const models = new Map<string, MainContentModel>();
  // --thresholds article=0.5,default=0.35: per page kind, to choose them (what the fold files hold otherwise).
  const thresholds = argument('thresholds')
    ? Object.fromEntries(
        argument('thresholds')!
          .split(',')
          .map((pair) => [pair.split('=')[0]!, Number(pair.split('=')[1])]),
      )
    : undefined;
  const modelOf = (prefix: string, fold: number) => {
    const name = `${prefix}fold-${fold}.json`;
    let model = models.get(name);
    if (!model) {
      const file = JSON.parse(fs.readFileSync(path.join(dir, name), 'utf8')) as MainContentModelFile;
      if (thresholds) file.thresholds = PAGE_KINDS.map((kind) => thresholds[kind] ?? thresholds.default ?? file.blocks.threshold);
      model = new MainContentModel(file);
      models.set(name, model);
    }
    return model;
  };
  const converter = new MarkdownConverter(await MainContentReader.load(), MARKDOWN_RULES, null);
  const runs: Array<{ name: string; model: (page: WcxbPage) => MainContentModel | null }> = [
    { name: 'rules (locator alone)', model: () => null },
    { name: 'rules + LightGBM block model (5-fold, by site)', model: (page) => modelOf('', folds[page.id] ?? 0) },
  ];
  if (fs.existsSync(path.join(dir, 'hgb-fold-0.json')) && !process.argv.includes('--lightgbm-only'))
    runs.push({ name: 'rules + scikit-learn HGB block model (5-fold, by site)', model: (page) => modelOf('hgb-', folds[page.id] ?? 0) });
  const figures: Figures[] = [];
  const perPage: Record<string, Record<string, number>> = {};
  const scores = runs.map(() => [] as Array<PageScore & { type: string }>);
  const times = runs.map(() => [] as number[]);
  // Page by page, each run in turn on its own parse of the page (the parse is the same for all and
  // not timed): the time a run adds is its time minus the rules' on the same page, in the same moment.
  for (const page of pages)
    runs.forEach((run, r) => {
      const model = run.model(page);
      const parsed = new ParsedPage(page.html, page.url, { scriptsRan: false });
      void parsed.body;
      const started = performance.now();
      const text = markdownProse(converter.convert(parsed, { onlyMainContent: true, model }).markdown);
      times[r]!.push(performance.now() - started);
      const score = scorePage(text, page.truth);
      (perPage[page.id] ??= {})[run.name] = score.f1;
      scores[r]!.push({ ...score, type: page.type });
    });
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
  runs.forEach((run, r) => {
    const byType: Figures['byType'] = {};
    for (const type of PAGE_TYPES) {
      const ofType = scores[r]!.filter((s) => s.type === type);
      if (ofType.length > 0) byType[type] = mean(ofType);
    }
    figures.push({
      name: run.name,
      overall: mean(scores[r]!),
      byType,
      msPerPage: { p50: median(times[r]!), added: median(times[r]!.map((t, i) => t - times[0]![i]!)) },
    });
  });
  fs.writeFileSync(path.join(dir, 'per-page.json'), JSON.stringify(perPage));
  return figures;
}

function table(figures: Figures[]): string {
  const head = `| | overall (${figures[0]?.overall.pages ?? 0}) | ${PAGE_TYPES.map((t) => `${t} (${figures[0]?.byType[t]?.pages ?? 0})`).join(' | ')} | precision | recall | article precision | article recall | ms/page p50 | added p50 |`;
  const rule = `|${'---|'.repeat(PAGE_TYPES.length + 8)}`;
  const rows = figures.map(
    (f, r) =>
      `| ${f.name} | ${f.overall.f1.toFixed(3)} | ${PAGE_TYPES.map((t) => f.byType[t]?.f1.toFixed(3) ?? '—').join(' | ')} | ${f.overall.precision.toFixed(3)} | ${f.overall.recall.toFixed(3)} | ${f.byType.article?.precision.toFixed(3) ?? '—'} | ${f.byType.article?.recall.toFixed(3) ?? '—'} | ${f.msPerPage.p50.toFixed(1)} | ${r === 0 ? '—' : `+${f.msPerPage.added.toFixed(1)}`} |`,
  );
  return [head, rule, ...rows].join('\n');
}

/**
 * Pages no model here trained on: the real-page corpus (130 pages, each with the article a reader
 * view extracts from it), scored as WCXB scores (word F1 of the plain text against the article's
 * text), for the rules alone, the shipped model over them and Readability.js over the same DOM
 * library; page by page where Readability wins by more than 0.05.
 */
async function scoreCorpus(): Promise<void> {
  if (!requireInputs('main-content-training corpus', [PAGE_CORPUS])) return;
  const converter = new MarkdownConverter(await MainContentReader.load());
  const { parseHTML } = await importEsm<{ parseHTML(html: string): { document: Document } }>('linkedom');
  const extractors: Array<[string, (html: string) => string]> = [
    [
      'rules (locator alone)',
      (html) => markdownProse(converter.convert(new ParsedPage(html, CORPUS_PAGE_URL), { onlyMainContent: true, model: null }).markdown),
    ],
    [
      'rules + model (shipped)',
      (html) => markdownProse(converter.convert(new ParsedPage(html, CORPUS_PAGE_URL), { onlyMainContent: true }).markdown),
    ],
    [
      'Readability.js (linkedom)',
      (html) => {
        const article = new Readability(parseHTML(html).document).parse();
        return article?.content ? visibleTextOf(article.content) : '';
      },
    ],
  ];
  const rows: Array<{ name: string; scores: PageScore[] }> = [];
  const pages = readCorpus();
  for (const [name, extract] of extractors) {
    const scores = pages.map((page) =>
      scorePage(extract(page.source), { main_content: visibleTextOf(page.expected), with: [], without: [] }),
    );
    rows.push({ name, scores });
  }
  const lines = [
    `| real-page corpus (${pages.length} pages) | F1 | precision | recall |`,
    '|---|---|---|---|',
    ...rows.map(({ name, scores }) => {
      const m = mean(scores);
      return `| ${name} | ${m.f1.toFixed(3)} | ${m.precision.toFixed(3)} | ${m.recall.toFixed(3)} |`;
    }),
  ];
  const [, model, readability] = rows;
  const behind = pages
    .map((page, i) => ({ name: page.name, ours: model!.scores[i]!.f1, readability: readability!.scores[i]!.f1 }))
    .filter((row) => row.readability - row.ours > 0.05)
    .sort((a, b) => b.readability - b.ours - (a.readability - a.ours));
  lines.push('', `Pages where Readability.js leads the model by more than 0.05 F1 (${behind.length}):`, '');
  for (const row of behind) lines.push(`- ${row.name}: model ${row.ours.toFixed(3)}, Readability.js ${row.readability.toFixed(3)}`);
  process.stdout.write(lines.join('\n') + '\n');
}

const SHIPPED_MODEL = 'apps/scrape-engine/src/formats/main-content-model.json';
const MODEL_CARD = 'docs/main-content-model.md';
/** Blocks' features with the trainer's own predictions for them: block-model.spec.ts holds the engine's evaluator to them. */
const MODEL_PARITY = 'test/fixtures/main-content-model-parity.json';

/** The final model (trained on every page) where the engine reads it, and the model card's figures from this run. */
function publish(dir: string): void {
  const model = JSON.parse(fs.readFileSync(path.join(dir, 'model.json'), 'utf8')) as MainContentModelFile;
  fs.writeFileSync(SHIPPED_MODEL, JSON.stringify(model) + '\n');
  fs.copyFileSync(path.join(dir, 'parity.json'), MODEL_PARITY);
  const training = JSON.parse(fs.readFileSync(path.join(dir, 'training.json'), 'utf8')) as Record<string, unknown>;
  const cv = fs.readFileSync(path.join(dir, 'cv-table.md'), 'utf8').trim();
  const card = fs.readFileSync(MODEL_CARD, 'utf8');
  const generated = [
    '<!-- figures: written by npm run train:main-content -->',
    `Model file: \`${SHIPPED_MODEL}\`, ${(fs.statSync(SHIPPED_MODEL).size / 1024).toFixed(0)} KB, page-type classifiers of ${model.pageTypes.map((m) => m.trees.length).join('/')} trees over ${model.pageTypes[0]?.features.length} features, block model of ${model.blocks.trees.length} trees over ${model.blocks.features.length} features, thresholds by page kind ${PAGE_KINDS.map((kind, k) => `${kind} ${model.thresholds[k]}`).join(', ')}.`,
    '',
    'WCXB dev, 5-fold cross-validation with folds grouped by site (every page scored by a model that never saw its site):',
    '',
    cv,
    '',
    'Training data and block-level out-of-fold figures (weighted as the page-level score weighs words):',
    '',
    '```json',
    JSON.stringify(training, null, 2),
    '```',
    '<!-- /figures -->',
  ].join('\n');
  const updated = card.replace(/<!-- figures:[\s\S]*?<!-- \/figures -->/, generated);
  fs.writeFileSync(MODEL_CARD, updated);
  process.stdout.write(`${SHIPPED_MODEL} and ${MODEL_CARD} written\n`);
}

function argument(name: string): string | undefined {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 ? process.argv[at + 1] : undefined;
}

async function main(): Promise<void> {
  const command = process.argv[2];
  if (command === 'corpus') return scoreCorpus();
  if (!requireInputs('npm run train:main-content', [WCXB_SPLIT])) return;
  const pages = readWcxbSplit({ split: 'dev' });
  if (command === 'features') return writeFeatures(pages, argument('out') ?? '.scratch/main-content');
  if (command === 'score') {
    const dir = argument('folds') ?? '.scratch/main-content';
    const figures = await scoreFolds(pages, dir);
    const text = table(figures);
    fs.writeFileSync(path.join(dir, 'cv-table.md'), text + '\n');
    fs.writeFileSync(path.join(dir, 'cv.json'), JSON.stringify(figures, null, 2));
    process.stdout.write(`WCXB dev, ${pages.length} pages, every page scored by a model that never saw its site:\n\n${text}\n`);
    return;
  }
  if (command === 'publish') return publish(argument('folds') ?? '.scratch/main-content');
  process.stderr.write('usage: main-content-training features --out DIR | score --folds DIR | publish --folds DIR\n');
  process.exitCode = 2;
}

if (require.main === module) void main();
