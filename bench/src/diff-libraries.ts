import fs from 'node:fs';
import path from 'node:path';
import { createTwoFilesPatch, structuredPatch } from 'diff';
import { diff as myersDiff } from 'fast-myers-diff';
import TurndownService from 'turndown';
import { PAGE_CORPUS, requireInputs } from './bench-inputs';
import { corpusDirectory, corpusMissing } from './markdown-quality';

/**
 * `npm run bench:diff`: the diff library a monitor's unified diff is made with (decision 0038),
 * measured beside the fastest line differ on npm, on the page corpus's articles as markdown, each
 * changed on a script (every 20th line edited, a paragraph inserted, one removed).
 */
function main(): void {
  if (!requireInputs('npm run bench:diff', [PAGE_CORPUS])) return;
  if (!fs.existsSync(corpusDirectory())) {
    console.log(corpusMissing());
    return;
  }
  const turndown = new TurndownService();
  const pairs: Array<[string, string]> = [];
  for (const name of fs.readdirSync(corpusDirectory())) {
    const file = path.join(corpusDirectory(), name, 'expected.html');
    if (!fs.existsSync(file)) continue;
    const before = turndown.turndown(fs.readFileSync(file, 'utf8'));
    const lines = before.split('\n');
    if (lines.length < 20) continue;
    const after = lines.map((line, i) => (i % 20 === 7 && line.trim() ? `${line} (updated)` : line));
    after.splice(Math.floor(after.length / 2), 0, 'A new paragraph appeared here.');
    after.splice(3, 1);
    pairs.push([before, after.join('\n')]);
  }
  const median = (work: (a: string, b: string) => unknown) => {
    const rounds: number[] = [];
    for (let round = 0; round < 7; round += 1) {
      const started = performance.now();
      for (const [a, b] of pairs) work(a, b);
      rounds.push(performance.now() - started);
    }
    rounds.sort((x, y) => x - y);
    return Math.round((rounds[3] / pairs.length) * 1000) / 1000;
  };
  const changedLines = (a: string, b: string) => ({
    jsdiff: structuredPatch('u', 'u', a, b, '', '', { context: 0 }).hunks.reduce((n, h) => n + h.lines.length, 0),
    myers: [...myersDiff(a.split('\n'), b.split('\n'))].reduce((n, [sx, ex, sy, ey]) => n + (ex - sx) + (ey - sy), 0),
  });
  const agreeing = pairs.filter(([a, b]) => {
    const counts = changedLines(a, b);
    return counts.jsdiff === counts.myers;
  }).length;
  const rows = [
    {
      library: 'diff (jsdiff) 9.0.0: unified patch, 3 lines of context',
      ms_per_page: median((a, b) => createTwoFilesPatch('u', 'u', a, b, 'previous', 'current', { context: 3 })),
    },
    {
      library: 'fast-myers-diff 3.2.0: edit script only (no unified output)',
      ms_per_page: median((a, b) => [...myersDiff(a.split('\n'), b.split('\n'))]),
    },
  ];
  console.log(JSON.stringify({ pages: pairs.length, rows, same_changed_line_count: `${agreeing}/${pairs.length}` }, null, 1));
}

main();
