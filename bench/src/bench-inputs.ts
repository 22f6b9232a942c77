import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { wcxbDirectory } from './corpus-verdicts';
import { corpusDirectory } from './markdown-quality';

/**
 * What a benchmark reads that this repository does not hold (docs/benchmarks.md, "The page
 * corpora"): each with where it is looked for, what it must hold and where to get it. A bench run
 * without one says so and exits, instead of failing somewhere inside with a stack.
 */
export interface BenchInput {
  what: string;
  /** Present and usable. */
  found(): boolean;
  /** Where it is looked for, and how to point elsewhere. */
  where(): string;
  /** Where to get it. */
  source: string;
}

export const PAGE_CORPUS: BenchInput = {
  what: 'the page corpus (130 real pages with their main articles)',
  found: () =>
    fs.existsSync(corpusDirectory()) &&
    fs.readdirSync(corpusDirectory()).some((name) => fs.existsSync(`${corpusDirectory()}/${name}/source.html`)),
  where: () => `PAGE_CORPUS_DIR=${corpusDirectory()}: the directory holding <name>/source.html and <name>/expected.html`,
  source: 'the test pages of https://github.com/mozilla/readability (test/test-pages/, Apache-2.0)',
};

export const WCXB_SPLIT: BenchInput = {
  what: "WCXB's dev split (1,497 pages with reviewed main content, and its evaluate.py one level up)",
  found: () => fs.existsSync(`${wcxbDirectory()}/html`) && fs.existsSync(`${wcxbDirectory()}/ground-truth`),
  where: () => `WCXB_DIR=${wcxbDirectory()}: the split's directory holding html/ and ground-truth/`,
  source: 'https://github.com/Murrough-Foley/web-content-extraction-benchmark (CC-BY-4.0)',
};

/** A program the bench runs (pandoc, Chromium), found by running it. */
export function program(what: string, command: string, args: string[], source: string): BenchInput {
  return {
    what,
    found: () => {
      try {
        execFileSync(command, args, { stdio: 'ignore', timeout: 30_000 });
        return true;
      } catch {
        return false;
      }
    },
    where: () => `${command} (${[command, ...args].join(' ')} did not run)`,
    source,
  };
}

export const PANDOC_PROGRAM = program('pandoc', 'pandoc', ['--version'], 'Debian: apt-get install -y pandoc');
export const CHROMIUM_PROGRAM = program(
  'Chromium',
  process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
  ['--version'],
  'Debian: apt-get install -y chromium chromium-headless-shell (or set CHROMIUM_PATH)',
);

/** The inputs missing, as the lines that say what each is, where it was looked for and where to get it. */
export function missingInputs(inputs: BenchInput[]): string[] {
  return inputs
    .filter((input) => !input.found())
    .map((input) => `  ${input.what}\n    looked for: ${input.where()}\n    get it: ${input.source}`);
}

/** False, having said what is missing (exit status 2), when `bench` cannot run here. */
export function requireInputs(bench: string, inputs: BenchInput[]): boolean {
  const missing = missingInputs(inputs);
  if (missing.length === 0) return true;
  process.stderr.write(
    `${bench} needs what this repository does not hold:\n${missing.join('\n')}\nSee docs/benchmarks.md ("The page corpora"). Nothing was measured.\n`,
  );
  process.exitCode = 2;
  return false;
}
