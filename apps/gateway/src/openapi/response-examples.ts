import {
  type BatchView,
  type BatchWriteReply,
  type ClientJobPage,
  type CollectionWriteReply,
  type CreditSummary,
  type ProjectList,
  type ProjectsSummary,
  type ProjectView,
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
  cancelled_requests: 0,
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
      job_id: JOB,
      run_public_id: RUN,
      run_id: RUN,
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
      outcome: 'success',
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
        api_replays: [],
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

const PROJECT = '5b7d9f1a-3c5e-4f7a-9b1d-2e4f6a8c0d1e';
const BATCH = '9e1f3a5c-7b9d-4e1f-a3b5-c7d9e1f3a5b7';

export const PROJECT_EXAMPLE: ProjectView = {
  project_id: PROJECT,
  name: 'price-watch',
  status: 'active',
  defaults: { format: 'markdown', only_main_content: true },
  callback_url: 'https://hooks.example.com/scrapes',
  monthly_credit_cap: 20000,
  max_concurrent_jobs: 10,
  created_at: 1795000000,
  updated_at: 1795000000,
};

export const PROJECTS_EXAMPLE: ProjectList = { items: [PROJECT_EXAMPLE], cursor_next: null, has_more: false };

export const PROJECTS_SUMMARY_EXAMPLE: ProjectsSummary = {
  month: '2026-11',
  items: [
    {
      project_id: PROJECT,
      name: 'price-watch',
      status: 'active',
      jobs: { pending: 120, running: 10, completed: 860, failed: 8, timeout: 2, cancelled: 0 },
      outcomes: { success: 851, failed: 17, timeout: 2, cancelled: 0 },
      credits_used_this_month: 862,
      monthly_credit_cap: 20000,
      max_concurrent_jobs: 10,
      has_capacity: false,
      capacity_reason: 'concurrency_full',
    },
  ],
};

export const BATCH_EXAMPLE: BatchView = {
  batch_id: BATCH,
  project_id: PROJECT,
  name: 'monday-prices',
  state: 'running',
  status: 'in_progress',
  total_requests: 3,
  success_requests: 1,
  failed_requests: 0,
  timeout_requests: 0,
  cancelled_requests: 0,
  credits_charged: 1,
  callback_url: 'https://hooks.example.com/scrapes',
  callback_status: 'pending',
  created_at: 1795000000,
  completed_at: null,
};

export const BATCH_WRITE_EXAMPLE: BatchWriteReply = {
  ...BATCH_EXAMPLE,
  state: 'open',
  success_requests: 0,
  credits_charged: 0,
  added_requests: 2,
  duplicates_skipped: 1,
  duplicate_urls: ['https://example.com/a'],
  blocked_urls: [],
  invalid_items: [],
  message: 'Batch created with 2 jobs; 1 duplicate skipped.',
};

export const CLIENT_JOBS_EXAMPLE: ClientJobPage = {
  items: [
    {
      job_id: JOB,
      job_public_id: JOB,
      batch_id: BATCH,
      batch_kind: 'batch',
      project_id: PROJECT,
      collection_id: null,
      status: 'completed',
      url: 'https://example.com/a',
      url_truncated: false,
      custom_id: 'sku-1',
      status_code: 200,
      error: null,
      queued_at: '2026-11-25T10:00:00.000',
      started_at: '2026-11-25T10:00:00.120',
      completed_at: '2026-11-25T10:00:01.480',
      retries_attempted: 0,
      is_success: true,
      outcome: 'success',
      credits: 1,
    },
  ],
  cursor_next: null,
  has_more: false,
};

export const CREDIT_SUMMARY_EXAMPLE: CreditSummary = {
  month: '2026-11',
  plan: 'scale',
  limit: 500000,
  used: 1250,
  held: 15,
  remaining: 498735,
  resets_at: 1796083200,
  by_kind: { simple: 900, browser: 300, download: 20, viability: 30 },
  by_project: [{ project_id: PROJECT, credits: 862 }],
  outside_projects: 388,
};
