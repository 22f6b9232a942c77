import {
  type CollectionWriteReply,
  CONTENT_RULES_VERSION,
  type JobListingPage,
  type RunView,
  type ScrapeResultBody,
  type ViabilityRunView,
} from '@lib/contracts';

/**
 * Bodies shown in the document for the main operations. Typed as what the handlers return, and
 * validated against their schemas by test/contract/api-description.spec.ts, so they cannot drift.
 */
const COLLECTION = '3f0c8f2e-5a4b-4d7e-9a51-2c6e1b7d9f10';
const RUN = '8d2b4c61-0e3f-4a8b-b7c5-91f0d2e6a3b4';
const JOB = 'c1e5a7b9-2d4f-4c6e-8a0b-3f5d7e9a1c2b';

export const SCRAPE_EXAMPLE: ScrapeResultBody = {
  html: null,
  markdown: '# Example Domain\n\nThis domain is for use in illustrative examples in documents.',
  statusCode: 200,
  message: 'OK',
  screenshot: null,
  executionTime: 0.412,
  extracted_data: { title: 'Example Domain' },
  evaluate_results: null,
  network_requests: null,
  potentiallyBlockedByCaptcha: false,
  timings: { queue_wait_ms: 0, proxy_ms: 0, navigation_ms: 371, extraction_ms: 22, total_ms: 405 },
  guidance: {
    success: true,
    error_type: null,
    error_provider: null,
    credits_charged: 1,
    credits_refunded: false,
    next_steps: [],
    suggested_request: null,
    stop_reason: null,
  },
  content_type: 'text/html; charset=UTF-8',
  body_base64: null,
  body_url: null,
};

export const COLLECTION_CREATED_EXAMPLE: CollectionWriteReply = {
  id: COLLECTION,
  name: 'nightly',
  message: 'Collection created with 2 requests; 1 blocked.',
  duplicates_skipped: 0,
  blocked_urls: [
    {
      index: 2,
      url: 'http://10.0.0.1/',
      reason: 'private_ip',
      message: 'The target address is not public: private addresses are never fetched.',
    },
  ],
  invalid_items: [],
  duplicate_urls: [],
};

export const RUN_EXAMPLE: RunView = {
  run_id: RUN,
  status: 'completed',
  total_requests: 2,
  success_requests: 1,
  failed_requests: 1,
  timeout_requests: 0,
  collection_id: COLLECTION,
  job_ids: [JOB, 'e7f9b1d3-4a6c-4e8f-9b2d-5c7e9f1b3d5a'],
  callback_url: 'https://hooks.example.com/scrapes',
  callback_status: 'sent',
  created_at: 1795000000,
  failed_jobs: [
    {
      job_id: 'e7f9b1d3-4a6c-4e8f-9b2d-5c7e9f1b3d5a',
      url: 'https://example.com/missing',
      custom_id: 'b',
      status: 'completed',
      error: 'HTTP 404',
    },
  ],
  success_criterion: { version: CONTENT_RULES_VERSION, rules: ['the worker completed the fetch', 'the target answered HTTP 2xx'] },
  all_jobs_persisted: true,
  credits_charged: 2,
};

export const JOBS_EXAMPLE: JobListingPage = {
  items: [
    {
      job_public_id: JOB,
      run_public_id: RUN,
      collection_id: COLLECTION,
      status: 'completed',
      url: 'https://example.com/',
      url_truncated: false,
      custom_id: 'a',
      status_code: 200,
      message: 'OK',
      queued_at: '2026-11-24T10:00:00.000',
      started_at: '2026-11-24T10:00:00.120',
      completed_at: '2026-11-24T10:00:01.480',
      execution_time_ms: 1360,
      retries_attempted: 0,
      block_reason: null,
      protection_stack: [],
      rule_hits: [],
      is_success: true,
    },
  ],
  cursor_next: 'eyJvIjoiaWQiLCJrIjoxfQ',
  has_more: true,
};

export const VIABILITY_RUN_EXAMPLE: ViabilityRunView = {
  run_id: '5e7a9c1b-3d5f-4a7c-9e1b-2c4d6f8a0b13',
  status: 'completed',
  depth: 'standard',
  total_urls: 1,
  completed_urls: 1,
  created_at: '2026-11-24T09:12:03.417Z',
  completed_at: '2026-11-24T09:12:05.902Z',
  results: [
    {
      url: 'https://shop.example.com/products',
      recommended_strategy: 'browser',
      javascript_required: true,
      browser_confidence: 0.86,
      captcha_detected: false,
      captcha_providers: [],
      cloudflare_level: 'present',
      login_wall: { detected: false, evidence: [] },
      api_detected: false,
      api_endpoints: [],
      api_auth_required: false,
      can_use_extract_html: false,
      can_use_browser: true,
      can_use_simple_request: true,
      tests: {
        simple_request: { success: true, status_code: 200, blocked: false, captcha_type: null, time_ms: 212, credits: 1, error: null },
        extract_html: {
          success: false,
          status_code: 200,
          blocked: false,
          captcha_type: null,
          time_ms: 231,
          credits: 1,
          error: 'thin_main_content',
        },
        browser: { success: true, status_code: 200, blocked: false, captcha_type: null, time_ms: 1840, credits: 5, error: null },
      },
      difficulty: 'medium',
      suggested_request: {
        url: 'https://shop.example.com/products',
        browser: true,
        browser_type: 'heavy',
        actions: [{ type: 'wait-for-selector', selector: 'css:#app', time: 10000 }],
      },
      reasons: [
        'the content is rendered by JavaScript (browser confidence 0.86)',
        'anti-bot protection: cloudflare (present, not challenging)',
      ],
      protection: ['cloudflare'],
      embedded_data: [],
    },
  ],
};
