import type { ScrapeResultBody } from '@lib/contracts';
import { scrapeResult } from '../../../../test/support/scrape-fixtures';
import { extractionTestOf, MAIN_CONTENT_MIN_CHARS } from './url-analysis';

const result = (markdown: string, success = true): ScrapeResultBody =>
  scrapeResult(200, {
    html: null,
    markdown,
    executionTime: 0.2,
    timings: {},
    guidance: { success, error_type: success ? null : 'empty_shell' },
  });

describe('extractionTestOf (the extract_html mode test)', () => {
  it('passes an article whose main content converted', () => {
    expect(extractionTestOf(result('x'.repeat(MAIN_CONTENT_MIN_CHARS)), 5000)).toMatchObject({ success: true, error: null, credits: 1 });
  });
  it('fails a long page whose extraction kept next to nothing', () => {
    expect(extractionTestOf(result('# Menu'), 5000)).toMatchObject({ success: false, error: 'thin_main_content', status_code: 200 });
  });
  it('passes a page that is simply short, when the extraction kept half of it', () => {
    expect(extractionTestOf(result('A short note of sixty characters or so, kept whole here.'), 90)).toMatchObject({ success: true });
    expect(extractionTestOf(result('A short'), 90)).toMatchObject({ success: false, error: 'thin_main_content' });
  });
  it('keeps the fetch verdict when the fetch itself failed', () => {
    expect(extractionTestOf(result('', false), 0)).toMatchObject({ success: false, error: 'empty_shell' });
  });
});
