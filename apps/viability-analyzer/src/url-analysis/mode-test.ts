import { type ScrapeResultBody, SITE_REFUSAL_ERROR_TYPES } from '@lib/contracts';
import type { ModeTest } from './strategy-recommendation';

// guidance.error_type values that are the site refusing (charged) rather than the fetch failing.
const BLOCK_TYPES = new Set<string>([...SITE_REFUSAL_ERROR_TYPES, 'http_4xx']);

/**
 * A probe's scrape result as the per-mode test of spec 2.15. `success` is the content validator's
 * verdict (usable content), `blocked` a refusal by the site, `captcha_type` the provider of a
 * CAPTCHA gate, `credits` what the probe was charged (infrastructure failures are free), `error`
 * the guidance error type when it failed.
 */
export function modeTestOf(result: ScrapeResultBody): ModeTest {
  const errorType = result.guidance.error_type;
  const answered = result.statusCode > 0;
  return {
    success: result.guidance.success,
    status_code: answered ? result.statusCode : null,
    blocked: errorType !== null && BLOCK_TYPES.has(errorType) && !(errorType === 'http_4xx' && result.statusCode === 404),
    captcha_type: errorType === 'captcha' ? (result.guidance.error_provider ?? 'unknown') : null,
    time_ms: Math.round(result.executionTime * 1000),
    credits: result.guidance.credits_charged,
    error: result.guidance.success ? null : errorType,
  };
}
