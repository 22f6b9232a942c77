/**
 * Spec section 8: every response carries these. One list for what admission writes and what the
 * OpenAPI document declares: a header added here must be written (UsageHeaderValues is total) and
 * is documented on every operation.
 */
export const USAGE_HEADERS = {
  'X-RateLimit-Limit': 'Requests per minute allowed.',
  'X-RateLimit-Remaining': 'Requests left in the window.',
  'X-RateLimit-Reset': 'Unix timestamp (seconds) when the window resets.',
  'X-Quota-Limit': 'Monthly credit quota; 0 means unlimited.',
  'X-Quota-Used': 'Credits used this month.',
  'X-Quota-Remaining': 'Credits remaining this month (0 when unlimited).',
  'X-Credits-Charged': 'Credits charged for this request.',
} as const;

export type UsageHeader = keyof typeof USAGE_HEADERS;

/** A value for every usage header: the compiler refuses a response that leaves one out. */
export type UsageHeaderValues = Record<UsageHeader, number>;
