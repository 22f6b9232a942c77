import type { MonitorPageDirectives } from '@lib/contracts';
import type { MessageBus } from '@lib/messaging';
import { scrapeFacts, scrapeResult } from '../../../../test/support/scrape-fixtures';
import { PageComparison } from './page-comparison';

/**
 * Which of a tick's pages are compared: a page that delivered usable content (the jobs' success
 * rules) and a page that is gone (404/410) are recorded; anything else — a timeout, a block, a 2xx
 * the content rules refuse — is not, and its change is unknown (null).
 */
describe('PageComparison', () => {
  const directives: MonitorPageDirectives = { monitor_id: 'm', run_id: 'r', ignore: { selectors: [], patterns: [] } };
  const facts = scrapeFacts;
  const result = (over: Parameters<typeof scrapeResult>[1] & { statusCode?: number } = {}) =>
    scrapeResult(over.statusCode ?? 200, { markdown: '# Shoe', ...over });

  function comparison() {
    const recorded: Array<{ content: string | null }> = [];
    const bus = {
      request: async (_subject: string, record: { content: string | null }) => (
        recorded.push(record),
        { change: { change_status: 'same' } }
      ),
    };
    return { compare: new PageComparison(bus as unknown as MessageBus), recorded };
  }

  it.each([
    ['a usable page', facts(), result(), '# Shoe'],
    ['a gone page (404)', facts({ status_code: 404 }), result({ statusCode: 404 }), null],
    ['a gone page (410)', facts({ status_code: 410 }), result({ statusCode: 410 }), null],
  ])('records %s', async (_, f, r, content) => {
    const { compare, recorded } = comparison();
    const compared = await compare.compare({ clientId: 'c', jobId: 'j', attempt: 1, url: 'https://shop.test/' }, directives, f, r);
    expect(compared.change).toEqual({ change_status: 'same' });
    expect(recorded.map((record) => record.content)).toEqual([content]);
  });

  it.each([
    ['a 2xx the content rules refuse (an empty shell, a soft block)', facts(), result({ guidance: { success: false } })],
    ['a blocked page', facts({ block_reason: 'captcha' }), result()],
    ['a server error', facts({ status_code: 503 }), result({ statusCode: 503 })],
    ['a page that never answered', facts({ billable: false, credits: 0 }), result({ statusCode: 0 })],
    ['a page without markdown', facts(), result({ markdown: null })],
  ])('does not compare %s: its change is unknown', async (_, f, r) => {
    const { compare, recorded } = comparison();
    const compared = await compare.compare({ clientId: 'c', jobId: 'j', attempt: 1, url: 'https://shop.test/' }, directives, f, r);
    expect(compared.change).toBeNull();
    expect(recorded).toEqual([]);
  });
});
