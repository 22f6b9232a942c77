/**
 * The published plans (spec 2.18, operator contract §3). Gateway reads rate limits and feature
 * flags from here, billing-meter reads monthly credits. `null` means unlimited (credits) or
 * "custom, set per client" (enterprise rate limit falls back to DEFAULT_ENTERPRISE_RATE_LIMIT).
 */
export const PLAN_IDS = ['free', 'starter', 'growth', 'pro', 'scale', 'enterprise', 'demo'] as const;
export type PlanId = (typeof PLAN_IDS)[number];

/** Every feature a plan may carry. A client's flags default to its plan's list. */
export const FEATURES = [
  'simple_requests',
  'browser_requests',
  'markdown',
  'extraction',
  'screenshots',
  'browser_actions',
  'network_capture',
  'file_download',
  'async_batches',
  'webhooks',
  'viability_test',
  'country_proxies',
  'mcp',
] as const;
export type Feature = (typeof FEATURES)[number];

export const CREDIT_COST = { simple_request: 1, browser_request: 5 } as const;

export const DEFAULT_ENTERPRISE_RATE_LIMIT = 1000;

export interface Plan {
  id: PlanId;
  name: string;
  /** Monthly price in USD; null for custom pricing. */
  priceUsdPerMonth: number | null;
  /** Credits per calendar month (UTC); null for unlimited. */
  monthlyCredits: number | null;
  /** Browser requests the monthly credits buy (credits / 5); null for unlimited. */
  browserRequestsPerMonth: number | null;
  /** Requests per minute; null means "custom" and is resolved per client. */
  rateLimitPerMinute: number | null;
  features: readonly Feature[];
  /** Whether the plan is sold publicly (the demo plan is a shared trial token, not a plan to buy). */
  public: boolean;
  /** Batch jobs of one client in flight at once (our value; the spec publishes none). */
  batchConcurrency: number;
  /**
   * Browser pages of one client rendering at once on one scrape-engine worker (our value). A sync
   * browser scrape past it is answered 429 with Retry-After; the worker also keeps one slot beyond
   * any single client's reach (BROWSER_CONCURRENCY − 1 at most), so no client can take them all.
   */
  browserConcurrency: number;
  /** Monitors (issue 63): how many, URLs each, shortest interval. */
  monitors: MonitorAllowance;
}

// Jobs of one client in flight at once, by plan: enough to drain a 1000-request collection in
// minutes on a paid plan while one client's batch cannot take every worker from the others.
const JOB_CONCURRENCY_BY_PLAN: Readonly<Record<PlanId, number>> = {
  free: 2,
  demo: 4,
  starter: 5,
  growth: 10,
  pro: 20,
  scale: 50,
  enterprise: 100,
};

// Browser pages of one client at once per worker, by plan: a page holds a slot for ~1-30 s, so a
// free client renders one at a time and a paying one several, never every slot of a worker.
const BROWSER_CONCURRENCY: Readonly<Record<PlanId, number>> = {
  free: 1,
  demo: 2,
  starter: 2,
  growth: 3,
  pro: 5,
  scale: 10,
  enterprise: 20,
};

/** What a plan's monitors may be (issue 63): how many, how many URLs each, how often at most. */
export interface MonitorAllowance {
  monitors: number;
  urlsPerMonitor: number;
  minIntervalSeconds: number;
}

// A tick of every URL of every monitor at the shortest interval is the plan's worst case; each page is
// charged like a batch job, so these bound the load a plan can schedule, not what it is billed.
const MONITORS_BY_PLAN: Readonly<Record<PlanId, MonitorAllowance>> = {
  free: { monitors: 1, urlsPerMonitor: 10, minIntervalSeconds: 86_400 },
  demo: { monitors: 2, urlsPerMonitor: 20, minIntervalSeconds: 3600 },
  starter: { monitors: 5, urlsPerMonitor: 100, minIntervalSeconds: 3600 },
  growth: { monitors: 20, urlsPerMonitor: 1000, minIntervalSeconds: 900 },
  pro: { monitors: 100, urlsPerMonitor: 5000, minIntervalSeconds: 300 },
  scale: { monitors: 500, urlsPerMonitor: 10_000, minIntervalSeconds: 60 },
  enterprise: { monitors: 2000, urlsPerMonitor: 10_000, minIntervalSeconds: 60 },
};

const ALL_FEATURES: readonly Feature[] = FEATURES;
const WITHOUT_COUNTRY_PROXIES: readonly Feature[] = FEATURES.filter((f) => f !== 'country_proxies');

export const PLAN_CATALOG: Readonly<Record<PlanId, Plan>> = {
  free: plan('free', 'Free', 0, 1000, 200, 10, ALL_FEATURES),
  starter: plan('starter', 'Starter', 29, 10_000, 2000, 60, ALL_FEATURES),
  growth: plan('growth', 'Growth', 69, 50_000, 10_000, 120, ALL_FEATURES),
  pro: plan('pro', 'Pro', 199, 200_000, 40_000, 200, ALL_FEATURES),
  scale: plan('scale', 'Scale', 499, 1_000_000, 200_000, 500, ALL_FEATURES),
  enterprise: plan('enterprise', 'Enterprise', null, null, null, null, ALL_FEATURES),
  demo: { ...plan('demo', 'Demo', 0, 5000, 1000, 30, WITHOUT_COUNTRY_PROXIES), public: false },
};

function plan(
  id: PlanId,
  name: string,
  priceUsdPerMonth: number | null,
  monthlyCredits: number | null,
  browserRequestsPerMonth: number | null,
  rateLimitPerMinute: number | null,
  features: readonly Feature[],
): Plan {
  return {
    id,
    name,
    priceUsdPerMonth,
    monthlyCredits,
    browserRequestsPerMonth,
    rateLimitPerMinute,
    features,
    public: true,
    batchConcurrency: JOB_CONCURRENCY_BY_PLAN[id],
    browserConcurrency: BROWSER_CONCURRENCY[id],
    monitors: MONITORS_BY_PLAN[id],
  };
}

export function isFeature(value: unknown): value is Feature {
  return typeof value === 'string' && (FEATURES as readonly string[]).includes(value);
}

/** A client's effective limits: per-client overrides win over the plan's values. */
export interface ClientLimits {
  rateLimitPerMinute: number;
  /** null = unlimited. */
  monthlyCredits: number | null;
  /** Batch jobs in flight at once. */
  batchConcurrency: number;
  /** Browser pages at once per scrape-engine worker. */
  browserConcurrency: number;
  monitors: MonitorAllowance;
}

export function resolveClientLimits(
  planId: PlanId,
  overrides: { rateLimitPerMinute?: number | null; monthlyCredits?: number | null } = {},
): ClientLimits {
  const p = PLAN_CATALOG[planId];
  return {
    rateLimitPerMinute: overrides.rateLimitPerMinute ?? p.rateLimitPerMinute ?? DEFAULT_ENTERPRISE_RATE_LIMIT,
    monthlyCredits:
      overrides.monthlyCredits !== undefined && overrides.monthlyCredits !== null ? overrides.monthlyCredits : p.monthlyCredits,
    batchConcurrency: p.batchConcurrency,
    browserConcurrency: p.browserConcurrency,
    monitors: p.monitors,
  };
}
