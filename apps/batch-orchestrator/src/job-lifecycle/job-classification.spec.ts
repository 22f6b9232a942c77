import { JOB_ERROR_TYPES, type ScrapeExecutionFacts, type ScrapeResultBody } from '@lib/contracts';
import { scrapeFacts, scrapeResult } from '../../../../test/support/scrape-fixtures';
import fc from 'fast-check';
import { classifyJobOutcome } from './job-classification';

const facts = scrapeFacts;
const result = (statusCode: number, guidance: Partial<ScrapeResultBody['guidance']> = {}) => scrapeResult(statusCode, { guidance });

const executed = (f: ScrapeExecutionFacts, r: ScrapeResultBody) => ({
  kind: 'executed' as const,
  facts: f,
  result: r,
  executionTimeMs: 100,
});

describe('classifyJobOutcome (spec 2.13/3.2)', () => {
  it('success: answered 2xx, nothing flagged — completed, charged', () => {
    expect(classifyJobOutcome(executed(facts(), result(200)))).toMatchObject({
      status: 'completed',
      isSuccess: true,
      credits: 1,
      error: null,
    });
  });

  it('an answer that is not usable is completed and charged, but not a success, with the reason', () => {
    expect(classifyJobOutcome(executed(facts({ status_code: 404 }), result(404)))).toMatchObject({
      status: 'completed',
      isSuccess: false,
      credits: 1,
      error: 'HTTP 404',
    });
    expect(classifyJobOutcome(executed(facts({ block_reason: 'captcha' }), result(200)))).toMatchObject({
      status: 'completed',
      isSuccess: false,
      error: 'blocked: captcha',
    });
    expect(classifyJobOutcome(executed(facts(), result(200, { success: false, error_type: 'empty_shell' })))).toMatchObject({
      status: 'completed',
      isSuccess: false,
      credits: 1,
      error: 'empty_shell',
    });
  });

  it('a target that never answered is failed and not charged, like the sync scrape', () => {
    const c = classifyJobOutcome(
      executed(facts({ billable: false, credits: 0, status_code: null }), result(0, { success: false, error_type: 'dns_error' })),
    );
    expect(c).toMatchObject({ status: 'failed', isSuccess: false, credits: 0 });
    expect(c.error).toMatch(/^dns_error: /);
  });

  it('each batch-only failure: timeout is `timeout`, the rest `failed`; never charged; the body says why', () => {
    for (const kind of JOB_ERROR_TYPES) {
      const c = classifyJobOutcome({ kind, message: `because ${kind}`, executionTimeMs: 5 });
      expect(c).toMatchObject({
        status: kind === 'timeout' ? 'timeout' : 'failed',
        isSuccess: false,
        credits: 0,
        error: `because ${kind}`,
      });
      expect(c.body.guidance).toMatchObject({ success: false, error_type: kind, credits_charged: 0 });
      expect(c.body.guidance.next_steps.length).toBeGreaterThan(0);
    }
  });

  it('for any answer: success iff answered 2xx unflagged; credits only when answered; an error iff not a success', () => {
    fc.assert(
      fc.property(
        fc.boolean(),
        fc.integer({ min: 100, max: 599 }),
        fc.option(fc.constantFrom('captcha', 'cloudflare'), { nil: null }),
        fc.boolean(),
        fc.integer({ min: 1, max: 10 }),
        (billable, code, block, usable, credits) => {
          const c = classifyJobOutcome(
            executed(facts({ billable, credits, status_code: code, block_reason: block }), result(code, { success: usable })),
          );
          expect(c.isSuccess).toBe(billable && code >= 200 && code < 300 && block === null && usable);
          expect(c.credits).toBe(billable ? credits : 0);
          expect(c.status).toBe(billable ? 'completed' : 'failed');
          expect(c.error === null).toBe(c.isSuccess);
        },
      ),
    );
  });
});
