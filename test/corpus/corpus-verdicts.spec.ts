import { CONTENT_RULES_VERSION } from '@lib/contracts';
import fs from 'node:fs';
import path from 'node:path';
import { changesSince, countsOf, judgeCorpus, readPageCorpus, readWcxb, type CorpusPageInput } from '../../bench/src/corpus-verdicts';
import { PAGE_CORPUS_SAMPLE } from '../support/page-corpus';

const RECORDED = path.resolve(__dirname, '../../bench/corpus-verdicts.json');
const WCXB_SAMPLE = path.resolve(__dirname, '../fixtures/wcxb-sample');

/**
 * The simple-mode verdict of real pages (issue 36): no page whose HTML carries its content is
 * called blocked or a shell, no page is an empty success while its content is elsewhere, and every
 * verdict is the one recorded for the current rules version (bench/corpus-verdicts.json), so a rule
 * change lists every page it moves. CI runs the vendored samples (both corpora); with
 * CORPUS_VERDICTS=full it runs the whole of both (1,627 pages, about a minute), read where
 * `npm run bench` reads them (PAGE_CORPUS_DIR, WCXB_DIR).
 */
describe('simple-mode verdicts of real pages', () => {
  const full = process.env.CORPUS_VERDICTS === 'full';
  const pages: CorpusPageInput[] = full
    ? [...readWcxb(), ...readPageCorpus()]
    : [...readWcxb(WCXB_SAMPLE), ...readPageCorpus(PAGE_CORPUS_SAMPLE)];

  it('blocks no page with content, succeeds empty on none, and moves no verdict unrecorded', async () => {
    if (full) expect(pages.length).toBeGreaterThan(1600);
    else expect(pages.length).toBe(41);
    const verdicts = await judgeCorpus(pages);
    const recorded = JSON.parse(fs.readFileSync(RECORDED, 'utf8')) as { rules_version: string; not_usable: Record<string, string> };
    const expected = Object.fromEntries(pages.map((p) => [p.id, recorded.not_usable[p.id] ?? 'usable']));
    const changes = changesSince(expected, verdicts);
    process.stdout.write(
      `simple-mode verdicts of ${pages.length} real pages (${CONTENT_RULES_VERSION}): ${JSON.stringify(countsOf(verdicts))}\n` +
        (changes.length
          ? `changed since ${recorded.rules_version}:\n${changes.map((c) => `  ${c.id}: ${c.was} → ${c.now}`).join('\n')}\n`
          : ''),
    );
    expect(verdicts.filter((v) => v.wrong).map((v) => `${v.id} ${v.wrong} (${v.verdict}; ${v.ruleHits.join(' ')})`)).toEqual([]);
    expect(changes).toEqual([]);
    // The rules version names the recorded verdicts: bump one, record the other (npm run bench writes them).
    expect(recorded.rules_version).toBe(CONTENT_RULES_VERSION);
  }, 300_000);

  // The class: the corpus is read as it is judged, never held whole (the bench's 1,627 pages held
  // at once were 2.7 GB of its peak): a page is read only once the one before it was judged, and
  // the event loop runs between pages.
  it('reads one page at a time, as it judges it, and lets the event loop through between pages', async () => {
    const log: string[] = [];
    const source = pages.slice(0, 3);
    const lazy = source.map((page) => ({
      id: page.id,
      load: () => {
        log.push(`load ${page.id}`);
        return page.load();
      },
    }));
    let ticking = true;
    const tick = () => {
      if (!ticking) return;
      log.push('tick');
      setImmediate(tick);
    };
    setImmediate(tick);
    const verdicts = await judgeCorpus(lazy);
    ticking = false;
    expect(verdicts.map((v) => v.id)).toEqual(source.map((p) => p.id));
    const loads = log.map((entry, i) => [entry, i] as const).filter(([entry]) => entry.startsWith('load'));
    expect(loads.map(([entry]) => entry)).toEqual(source.map((p) => `load ${p.id}`));
    // A tick between every two loads: nothing read ahead, nothing judged without a turn in between.
    for (let k = 1; k < loads.length; k++) expect(log.slice(loads[k - 1][1], loads[k][1])).toContain('tick');
  });
});
