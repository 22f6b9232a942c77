import { missingInputs, PAGE_CORPUS, program, WCXB_SPLIT } from '../../bench/src/bench-inputs';

describe('bench inputs', () => {
  const saved = { ...process.env };
  afterEach(() => {
    process.env = { ...saved };
  });

  it('says of each missing input what it is, where it was looked for (and the variable that moves it) and where to get it', () => {
    process.env.PAGE_CORPUS_DIR = '/nonexistent/pages';
    process.env.WCXB_DIR = '/nonexistent/wcxb/dev';
    const missing = missingInputs([
      PAGE_CORPUS,
      WCXB_SPLIT,
      program('a program', '/nonexistent/bin/tool', ['--version'], 'apt-get install -y tool'),
    ]);
    expect(missing).toHaveLength(3);
    expect(missing[0]).toMatch(/PAGE_CORPUS_DIR=\/nonexistent\/pages.*\n.*github\.com\/mozilla\/readability/s);
    expect(missing[1]).toMatch(/WCXB_DIR=\/nonexistent\/wcxb\/dev.*\n.*web-content-extraction-benchmark/s);
    expect(missing[2]).toMatch(/apt-get install -y tool/);
  });

  it('finds what is there: the vendored corpus sample, a program that runs', () => {
    process.env.PAGE_CORPUS_DIR = 'test/fixtures/page-corpus';
    expect(missingInputs([PAGE_CORPUS, program('node', process.execPath, ['--version'], '-')])).toEqual([]);
  });
});
