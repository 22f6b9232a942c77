import fs from 'node:fs';
import path from 'node:path';
import { TOOL_NAMES } from '../../apps/gateway/src/agent-tools/tool-names';

const ROOT = path.resolve(__dirname, '../..');
const README = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
// eslint-disable-next-line @typescript-eslint/no-require-imports
const runner = require('../../scripts/readme-examples.js') as {
  bashBlocks(markdown: string): string[];
  commandsOf(blocks: string[]): Array<{ text: string; expected: number[] | null }>;
};

/**
 * README is a walkthrough a newcomer runs top to bottom, then links (issue 65): these hold what
 * made the first hour rough — a page that grew past a screenful of scrolling, a list of tools that
 * went stale, a wait that could hang for ever. scripts/readme-examples.js runs it (twice) in CI.
 */
describe('README', () => {
  it('stays a walkthrough: 300 lines at most', () => {
    expect(README.trimEnd().split('\n').length).toBeLessThanOrEqual(300);
  });

  it('lists the agent endpoint’s tools as the server has them', () => {
    const paragraph = README.slice(README.indexOf('**Agent endpoint**'), README.indexOf('Connect Claude'));
    const listed = [...paragraph.matchAll(/`([a-z_]+)`/g)].map((m) => m[1]);
    expect(listed).toEqual([...TOOL_NAMES]);
  });

  it('waits for nothing without a bound: no until loop, every wait through wait_for (120 s)', () => {
    const commands = runner.commandsOf(runner.bashBlocks(README));
    expect(commands.length).toBeGreaterThan(40);
    expect(commands.filter((c) => /\buntil\b|\bwhile\b/.test(c.text))).toEqual([]);
    expect(commands.some((c) => /^wait_for\(\)/.test(c.text) && /seq 120/.test(c.text))).toBe(true);
  });

  it('says which answers a step may get when a rerun gets another (the runner reads "# → 201 or 409")', () => {
    const commands = runner.commandsOf(
      runner.bashBlocks(['```bash', 'curl -s x   # → 201 or 409', 'curl -s y', '# → 409 {"detail":"…"}', '```', ''].join('\n')),
    );
    expect(commands.map((c) => c.expected)).toEqual([[201, 409], [409]]);
  });
});
