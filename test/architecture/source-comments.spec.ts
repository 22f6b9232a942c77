import fs from 'node:fs';
import path from 'node:path';
import { REPOSITORY_ROOT, sourceFiles } from '../support/source-tree';

// A comment says why, once; what was measured, when and with which figure goes to
// docs/benchmarks.md ("Figures behind the code"), where a re-measurement changes one row. These
// patterns are the shapes measurement logs took in comments: a figure beside "measured", a CI
// observation, a date, a before → after pair.
const MEASUREMENT_LOG = [
  /\bmeasured\b.*\d(?:[.,]\d+)? ?(?:ms|s|MB|KB|GB|%|×)(?!\w)|\d(?:[.,]\d+)? ?(?:ms|s|MB|KB|GB|%|×)(?!\w).*\bmeasured\b/i,
  /\bCI saw\b|\(CI[:,]/,
  /\b20\d\d-[01]\d-[0-3]\d\b/,
  /\d(?:[.,]\d+)? ?(?:ms|s|MB|KB|%)? ?(?:→|->) ?\d/,
];

/** The comment text of each line of a TypeScript file: `//` to the end, and lines inside a block comment. */
function commentLines(text: string): { line: number; comment: string }[] {
  const found: { line: number; comment: string }[] = [];
  let inBlock = false;
  text.split('\n').forEach((source, i) => {
    const trimmed = source.trim();
    if (inBlock) {
      found.push({ line: i + 1, comment: trimmed });
      inBlock = !trimmed.includes('*/');
      return;
    }
    if (trimmed.startsWith('/*')) {
      found.push({ line: i + 1, comment: trimmed });
      inBlock = !trimmed.includes('*/', 2);
      return;
    }
    const slashes = source.indexOf('// ');
    if (trimmed.startsWith('//')) found.push({ line: i + 1, comment: trimmed });
    else if (slashes > 0 && !/['"`][^'"`]*\/\/ /.test(source.slice(0, slashes + 3)))
      found.push({ line: i + 1, comment: source.slice(slashes) });
  });
  return found;
}

export function measurementLogs(text: string): { line: number; comment: string }[] {
  return commentLines(text).filter(({ comment }) => MEASUREMENT_LOG.some((pattern) => pattern.test(comment)));
}

describe('comments in apps/ and libs/', () => {
  it('hold no measurement log (the figures live in docs/benchmarks.md)', () => {
    const logs = sourceFiles({ specs: false }).flatMap((file) =>
      measurementLogs(fs.readFileSync(path.join(REPOSITORY_ROOT, file), 'utf8')).map(({ line, comment }) => `${file}:${line} ${comment}`),
    );
    expect(logs).toEqual([]);
  });

  it('tells a measurement log from a comment that only names a number', () => {
    expect(measurementLogs('// a thread of its own (measured: 0.95 ms against 0.28 ms)')).toHaveLength(1);
    expect(measurementLogs('/**\n * Runs once (CI: a run finished 31.7 s after a restart).\n */')).toHaveLength(1);
    expect(measurementLogs('const x = 1; // on 2026-11-29 it took 450 → 341 MB')).toHaveLength(1);
    expect(measurementLogs("/** Seconds to wait, 1 to 30: about one page's hold time. */")).toEqual([]);
    expect(measurementLogs("const url = 'http://example.com/2026-11-29'; // the page's address")).toEqual([]);
    expect(measurementLogs('// measured without recursion')).toEqual([]);
    expect(measurementLogs('/** Timings measured up to the failure (spec 2.7: always present). */')).toEqual([]);
  });
});
