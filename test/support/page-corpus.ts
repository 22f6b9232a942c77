import path from 'node:path';

/**
 * The 32-page sample of the real page corpus vendored for tests (Apache-2.0, see its README), so
 * that a clone of this repository alone runs every test. Benchmarks read the full corpus instead
 * (bench/src/markdown-quality.ts: corpusDirectory()).
 */
export const PAGE_CORPUS_SAMPLE = path.resolve(__dirname, '../fixtures/page-corpus');
