import fs from 'node:fs';
import path from 'node:path';
import { RUN_KINDS } from '@lib/contracts';
import { REPOSITORY_ROOT, sourceFiles } from '../support/source-tree';

// A run kind is a row, not a sweep (issue 62): what differs between kinds is RUN_KIND_RULES'
// row, and code that names one kind lives in that kind's own module. A branch on a kind anywhere
// else is how a new kind turns into a 150-file change, so this spec refuses it.

/** Where a kind may be named in a branch: the rules table, each kind's own module, and the runs store's kind-specific rows. */
const KIND_HOMES = [
  'apps/batch-orchestrator/src/runs/run-kind-rules.ts',
  // batch (spec 4.8): the project's batch lifecycle
  'apps/batch-orchestrator/src/batches/',
  // collection (spec 2.13): a collection's run is launched here
  'apps/batch-orchestrator/src/runs/run-launcher.ts',
  'apps/batch-orchestrator/src/collections/',
  // crawl (issue 39): the crawl's run, opened and sealed by site-discovery
  'apps/batch-orchestrator/src/crawl-runs/',
  'apps/batch-orchestrator/src/persistence/runs.store.ts',
];

const KIND = `(?:${RUN_KINDS.join('|')})`;
const KIND_BRANCH = [
  // run.kind === 'crawl', kind !== 'batch', 'collection' === row.kind
  new RegExp(`\\b\\w*[kK]ind\\s*[!=]==?\\s*['"]${KIND}['"]`),
  new RegExp(`['"]${KIND}['"]\\s*[!=]==?\\s*[\\w.]*[kK]ind\\b`),
  // SQL: where kind = 'crawl', r.kind <> 'batch', kind in ('batch', …)
  new RegExp(`\\bkind\\s*(?:=|<>|!=)\\s*'${KIND}'|\\bkind\\s+in\\s*\\(\\s*'${KIND}'`),
];
const CASE_OF_KIND = new RegExp(`^\\s*case\\s+['"]${KIND}['"]\\s*:`);

export function kindBranches(text: string): number[] {
  const lines = text.split('\n');
  const found: number[] = [];
  lines.forEach((line, i) => {
    if (KIND_BRANCH.some((pattern) => pattern.test(line))) found.push(i + 1);
    // A case on a kind: the switch it belongs to names a kind in its head.
    else if (CASE_OF_KIND.test(line)) {
      const head = lines
        .slice(0, i)
        .reverse()
        .find((l) => /\bswitch\s*\(/.test(l));
      if (head && /[kK]ind\b/.test(head)) found.push(i + 1);
    }
  });
  return found;
}

describe('run kinds', () => {
  it('are branched on only in RUN_KIND_RULES, a kind’s own module, and the runs store', () => {
    const outside = sourceFiles({ specs: false })
      .filter((file) => !KIND_HOMES.some((home) => file.startsWith(home)))
      .flatMap((file) => kindBranches(fs.readFileSync(path.join(REPOSITORY_ROOT, file), 'utf8')).map((line) => `${file}:${line}`));
    expect(outside).toEqual([]);
  });

  it('each have a home that exists (a moved module leaves no stale allowance)', () => {
    for (const home of KIND_HOMES) expect(fs.existsSync(path.join(REPOSITORY_ROOT, home))).toBe(true);
  });

  it('tells a branch on a kind from other uses of the words', () => {
    expect(kindBranches("if (run.kind === 'crawl') return;")).toEqual([1]);
    expect(kindBranches("const done = 'batch' !== job.runKind;")).toEqual([1]);
    expect(kindBranches("select * from runs where id = $1 and kind = 'collection'")).toEqual([1]);
    expect(kindBranches("switch (run.kind) {\n  case 'batch':\n    break;\n}")).toEqual([2]);
    expect(kindBranches("switch (tool) {\n  case 'crawl':\n}")).toEqual([]);
    expect(kindBranches("const kind: RunKind = 'crawl';")).toEqual([]);
    expect(kindBranches("platformMetrics.creditsCharged.inc({ source: 'batch' }, 1);")).toEqual([]);
  });
});
