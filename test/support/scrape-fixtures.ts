import type { ScrapeExecutionFacts, ScrapeResultBody } from '@lib/contracts';

/** A successful scrape's guidance: nothing to do, 1 credit charged. Override what a test is about. */
export function scrapeGuidance(overrides: Partial<ScrapeResultBody['guidance']> = {}): ScrapeResultBody['guidance'] {
  return {
    success: true,
    error_type: null,
    error_provider: null,
    credits_charged: 1,
    credits_refunded: false,
    next_steps: [],
    suggested_request: null,
    stop_reason: null,
    ...overrides,
  };
}

/** A spec 2.7 response of a simple scrape that answered `statusCode` with a small HTML page. */
export function scrapeResult(
  statusCode = 200,
  overrides: Partial<Omit<ScrapeResultBody, 'guidance'>> & { guidance?: Partial<ScrapeResultBody['guidance']> } = {},
): ScrapeResultBody {
  const { guidance, ...fields } = overrides;
  return {
    html: '<p>x</p>',
    markdown: null,
    statusCode,
    message: 'OK',
    screenshot: null,
    executionTime: 0.4321,
    extracted_data: null,
    evaluate_results: null,
    network_requests: null,
    potentiallyBlockedByCaptcha: false,
    timings: { total_ms: 432 },
    content_type: 'text/html',
    body_base64: null,
    body_url: null,
    ...fields,
    guidance: scrapeGuidance(guidance),
  };
}

/** The engine's facts of a simple scrape that answered 200 and was charged 1 credit. */
export function scrapeFacts(overrides: Partial<ScrapeExecutionFacts> = {}): ScrapeExecutionFacts {
  return {
    billable: true,
    credits: 1,
    mode: 'simple',
    target_domain: 'example.com',
    status_code: 200,
    block_reason: null,
    protection_stack: [],
    rule_hits: [],
    rules_version: 'test',
    proxy: null,
    attempts: 1,
    ...overrides,
  };
}
