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
});
