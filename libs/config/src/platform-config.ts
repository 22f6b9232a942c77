import ipaddr from 'ipaddr.js';
import path from 'node:path';

/** Which transport and database the process uses; derived from NATS_URL / DATABASE_URL. */
export type RuntimeMode = 'embedded' | 'distributed';

export interface PlatformConfig {
  port: number;
  host: string;
  dataDir: string;
  databaseUrl: string | null;
  natsUrl: string | null;
  adminToken: string | null;
  demoToken: string | null;
  targetAllowlist: string[];
  proxyPool: Record<string, string[]>;
  webhookRetryDelaysSeconds: number[];
  resultRetentionHours: number;
  listingRetentionDays: number;
  /** Monitors' history: changes detected, and versions superseded or unseen, longer ago than this are pruned. */
  monitorHistoryDays: number;
  chromePath: string | null;
  /** chrome-headless-shell for light browsers; null = auto-detect (then Chromium itself). */
  headlessShellPath: string | null;
  /** Pages (browser contexts) one scrape-engine worker renders at once, both kinds together. */
  browserConcurrency: number;
  /** How long a browser request may wait for a free page slot before it fails as busy, ms. */
  browserQueueTimeoutMs: number;
  /** A browser is replaced after this many contexts (bounds slow leaks in long-lived browsers). */
  browserRecycleAfter: number;
  /** Browser page load (to the load event) before it fails as a timeout, ms. */
  browserNavigationTimeoutMs: number;
  /** A browser page's documents, scripts and data together, decoded bytes (media: 5×), before it is stopped as body_too_large. */
  browserPageMaxBytes: number;
  /** A document's bytes (PDF, Office, OpenDocument, EPUB, RTF by its Content-Type) in simple mode; pages keep 10 MB. */
  documentMaxBytes: number;
  /** A browser page's rendered document (characters), measured before it is read, else body_too_large. */
  browserPageMaxHtmlChars: number;
  /** Launch both browser kinds at start, so the first request does not pay for the launch. */
  browserWarm: boolean;
  /** A browser with no page open for this long is closed (memory back), ms; 0 keeps it open. */
  browserIdleCloseMs: number;
  /** After an idle interval this long, one full heap collection gives memory back (0: never). */
  memoryReclaimIdleMs: number;
  /**
   * Worker threads that run simple-mode scrapes beside the event loop when more than one is in
   * flight (0: every scrape on the event loop). Started on demand, gone after an idle interval.
   */
  simpleEngineThreads: number;
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  /** Largest accepted request body, bytes. Larger bodies get 413 before any parsing. */
  bodyLimitBytes: number;
  /** Requests per minute per client IP for calls without a valid token (health, plans, 401s). */
  anonymousRateLimitPerMinute: number;
  /** Calls per minute to administrator routes, on top of the admin client's own limit. */
  adminRateLimitPerMinute: number;
  /** Origins allowed to call the API from a browser (CORS); empty: no cross-origin access. */
  corsOrigins: string[];
  /** How long a caller waits for a reply from another context before giving up, ms. */
  rpcTimeoutMs: number;
  /** A sync scrape whose engine has not named it for this long has lost its engine (503). */
  engineSilenceMs: number;
  /** A sync scrape no engine has named in this long was never taken: it is sent once more. */
  engineAckTimeoutMs: number;
  /** Take the client IP from X-Forwarded-For (set when running behind the ingress). */
  trustProxy: boolean;
  /** Optional plain-HTTP liveness/readiness/metrics port for non-gateway services (Kubernetes probes, Prometheus). */
  healthPort: number | null;
  /**
   * Where ops events go besides the in-process bus in the embedded runtime (a NATS server ops
   * tooling subscribes to). In the distributed runtime they go to NATS_URL unless this names another.
   */
  opsNatsUrl: string | null;
  /**
   * Bearer token for GET /metrics. On the gateway's public port /metrics answers only with it (or
   * the administrator token when unset); on HEALTH_PORT (cluster-internal) it is required when set.
   */
  metricsToken: string | null;
  /**
   * On SIGTERM, readiness turns false at once and the process keeps serving this long before it
   * stops accepting work, so Kubernetes takes it out of the Service endpoints first.
   */
  drainDelayMs: number;
  /** Batch jobs one scrape-engine process works on at once (global capacity = processes × this). */
  jobWorkerConcurrency: number;
  /** Batch jobs in flight across all clients at once (dispatch stops above it). */
  jobGlobalConcurrency: number;
  /**
   * Life of a gateway's credit lease (decision 0013), renewed while in use; it bounds how long a
   * crashed gateway's credits stay held. A request takes credits only from a lease with two thirds
   * of this left, which must outlast the longest call (300 s): hence the default of 600.
   */
  creditLeaseSeconds: number;
  /** An unused credit lease goes back to the month after this long, ms. */
  creditLeaseIdleMs: number;
  /** A worker's hold on a job; renewed by heartbeats every third of it. Expired = the worker is gone. */
  jobLeaseSeconds: number;
  /** Longest a job may run on a worker before it is a worker-level timeout. */
  jobMaxRuntimeSeconds: number;
  /** Times a job whose worker died is dispatched again before it ends as `timeout`. */
  jobMaxRetries: number;
  /** How often batch-orchestrator looks for expired leases and jobs waiting for dispatch, ms. */
  jobSweepIntervalMs: number;
  /** How often result-store prunes expired result bodies and listing rows, seconds. */
  retentionSweepIntervalSeconds: number;
  /** The service's public address, for absolute links in webhooks (results_url). */
  publicBaseUrl: string;
  /** One webhook delivery attempt's time limit, ms. */
  webhookTimeoutMs: number;
  /** A sender's hold on a delivery it is attempting, renewed every third of it: a dead sender's delivery is free within this. */
  webhookLeaseMarginMs: number;
  /** How often webhook-sender looks for due deliveries, ms. */
  webhookPollIntervalMs: number;
  /**
   * Keys that encrypt webhook signing secrets at rest (AES-256-GCM), newest first: the first seals,
   * every one opens. Empty in the embedded runtime means a key file under DATA_DIR.
   */
  webhookSecretKeys: Array<{ id: string; key: Buffer }>;
  /** URLs one viability-analyzer process analyses at once (global capacity = processes × this). */
  viabilityConcurrency: number;
  /** URLs of one client under analysis at once, across every process. */
  viabilityClientConcurrency: number;
  /** A worker's hold on a URL under analysis; renewed every third of it. Expired = the worker is gone. */
  viabilityLeaseSeconds: number;
  /** How often an idle viability-analyzer looks for queued URLs, ms. */
  viabilityPollIntervalMs: number;
  /** Times a URL's analysis is started before it ends with the failure as its verdict. */
  viabilityMaxAttempts: number;
  /** Fetches one site-discovery process makes at once, across every map (a shared FIFO). */
  discoveryConcurrency: number;
  /** Requests to one host at once within a map or crawl (a Crawl-delay makes it one). */
  discoveryHostConcurrency: number;
  /** Whether clients may set ignore_robots (an operator's decision; off by default). */
  ignoreRobotsAllowed: boolean;
  /** A discovery worker's hold on a crawl during a pass; a dead worker's crawl is taken over when it runs out. */
  discoveryLeaseSeconds: number;
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration: ${problems.join('; ')}`);
  }
}

type Env = Record<string, string | undefined>;

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

/**
 * Reads and validates the whole environment once. Every problem is collected so that an operator
 * fixes them in one go; the caller turns ConfigError into a one-line message and exit code 1.
 * This is the only place that reads process.env.
 */
export function loadPlatformConfig(env: Env = process.env): PlatformConfig {
  const problems: string[] = [];
  const str = (name: string): string | undefined => {
    const value = env[name];
    return value === undefined || value.trim() === '' ? undefined : value.trim();
  };
  const int = (name: string, fallback: number, min: number, max: number): number => {
    const raw = str(name);
    if (raw === undefined) return fallback;
    const value = Number(raw);
    if (!Number.isInteger(value) || value < min || value > max) {
      problems.push(`${name} must be an integer from ${min} to ${max} (got "${raw}")`);
      return fallback;
    }
    return value;
  };
  // A variable renamed: the new name, else the one a running deployment may still set (read as
  // before, so a rolling upgrade keeps its setting), else the new name for the default and messages.
  const renamed = (name: string, formerly: string): string => (str(name) === undefined && str(formerly) !== undefined ? formerly : name);
  const url = (name: string, protocols: string[]): string | null => {
    const raw = str(name);
    if (raw === undefined) return null;
    try {
      const parsed = new URL(raw);
      if (!protocols.includes(parsed.protocol)) {
        problems.push(`${name} must use ${protocols.join(' or ')} (got "${parsed.protocol}")`);
      }
    } catch {
      problems.push(`${name} is not a valid URL`);
    }
    return raw;
  };
  const token = (name: string): string | null => {
    const raw = str(name);
    if (raw === undefined) return null;
    if (raw.length < 16 || /\s/.test(raw)) problems.push(`${name} must be at least 16 characters without whitespace`);
    return raw;
  };

  const proxyPool = parseProxyPool(str('PROXY_POOL'), problems);
  const retryDelays = (str('WEBHOOK_RETRY_DELAYS') ?? '60,300,1800,7200,43200').split(',').map((part) => Number(part.trim()));
  if (retryDelays.length === 0 || retryDelays.length > 5 || retryDelays.some((d) => !Number.isFinite(d) || d < 0)) {
    problems.push('WEBHOOK_RETRY_DELAYS must be a comma-separated list of 1 to 5 non-negative seconds (spec 6: at most 5 retries)');
  }
  const logLevel = (str('LOG_LEVEL') ?? 'info').toLowerCase();
  if (!(LOG_LEVELS as readonly string[]).includes(logLevel)) {
    problems.push(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')} (got "${logLevel}")`);
  }
  const trustProxyRaw = (str('TRUST_PROXY') ?? 'false').toLowerCase();
  if (!['true', 'false', '1', '0'].includes(trustProxyRaw)) problems.push('TRUST_PROXY must be true or false');
  // Off by default: idle Chromium of both kinds is most of an idle install's memory, and the
  // first browser request pays a launch of a few hundred ms instead.
  const browserWarmRaw = (str('BROWSER_WARM') ?? 'false').toLowerCase();
  if (!['true', 'false', '1', '0'].includes(browserWarmRaw)) problems.push('BROWSER_WARM must be true or false');
  const ignoreRobotsRaw = (str('IGNORE_ROBOTS_ALLOWED') ?? 'false').toLowerCase();
  if (!['true', 'false', '1', '0'].includes(ignoreRobotsRaw)) problems.push('IGNORE_ROBOTS_ALLOWED must be true or false');
  const healthPort = str('HEALTH_PORT') === undefined ? null : int('HEALTH_PORT', 0, 1, 65535);

  const config: PlatformConfig = {
    port: int('PORT', 8080, 0, 65535),
    host: str('HOST') ?? '0.0.0.0',
    dataDir: path.resolve(str('DATA_DIR') ?? './data'),
    databaseUrl: url('DATABASE_URL', ['postgresql:', 'postgres:']),
    natsUrl: url('NATS_URL', ['nats:', 'tls:']),
    adminToken: token('ADMIN_TOKEN'),
    demoToken: token('DEMO_TOKEN'),
    targetAllowlist: parseTargetAllowlist(str('TARGET_ALLOWLIST'), problems),
    proxyPool,
    webhookRetryDelaysSeconds: retryDelays,
    resultRetentionHours: int('RESULT_RETENTION_HOURS', 48, 1, 24 * 365),
    listingRetentionDays: int('LISTING_RETENTION_DAYS', 90, 1, 3650),
    monitorHistoryDays: int('MONITOR_HISTORY_DAYS', 90, 1, 3650),
    chromePath: str('CHROME_PATH') ?? null,
    headlessShellPath: str('CHROME_HEADLESS_SHELL_PATH') ?? null,
    browserConcurrency: int('BROWSER_CONCURRENCY', 4, 1, 64),
    browserQueueTimeoutMs: int('BROWSER_QUEUE_TIMEOUT_MS', 15_000, 100, 600_000),
    browserRecycleAfter: int('BROWSER_RECYCLE_AFTER', 200, 1, 100_000),
    browserNavigationTimeoutMs: int('BROWSER_NAVIGATION_TIMEOUT_MS', 30_000, 1000, 120_000),
    browserPageMaxBytes: int('BROWSER_PAGE_MAX_BYTES', 10 * 1024 * 1024, 1024 * 1024, 1024 * 1024 * 1024),
    documentMaxBytes: int('DOCUMENT_MAX_BYTES', 50 * 1024 * 1024, 1024 * 1024, 1024 * 1024 * 1024),
    browserPageMaxHtmlChars: int('BROWSER_PAGE_MAX_HTML_CHARS', 10 * 1024 * 1024, 1024 * 1024, 256 * 1024 * 1024),
    browserWarm: browserWarmRaw === 'true' || browserWarmRaw === '1',
    browserIdleCloseMs: int('BROWSER_IDLE_CLOSE_SECONDS', 60, 0, 86_400) * 1000,
    memoryReclaimIdleMs: int('MEMORY_RECLAIM_IDLE_SECONDS', 30, 0, 86_400) * 1000,
    simpleEngineThreads: int('SIMPLE_ENGINE_THREADS', 1, 0, 16),
    logLevel: logLevel as PlatformConfig['logLevel'],
    bodyLimitBytes: int('BODY_LIMIT_BYTES', 5 * 1024 * 1024, 1024, 100 * 1024 * 1024),
    anonymousRateLimitPerMinute: int('ANONYMOUS_RATE_LIMIT', 120, 1, 1_000_000),
    adminRateLimitPerMinute: int('ADMIN_RATE_LIMIT', 120, 1, 1_000_000),
    corsOrigins: parseCorsOrigins(str('CORS_ORIGINS'), problems),
    rpcTimeoutMs: int('RPC_TIMEOUT_MS', 10_000, 100, 600_000),
    engineSilenceMs: int('ENGINE_SILENCE_MS', 3500, 1500, 600_000),
    engineAckTimeoutMs: int('ENGINE_ACK_TIMEOUT_MS', 10_000, 1500, 600_000),
    trustProxy: trustProxyRaw === 'true' || trustProxyRaw === '1',
    healthPort,
    opsNatsUrl: url('OPS_NATS_URL', ['nats:', 'tls:']),
    metricsToken: token('METRICS_TOKEN'),
    drainDelayMs: int('DRAIN_SECONDS', 0, 0, 300) * 1000,
    // 16: simple jobs mostly wait on the network, and the service's own work per job (claim, end,
    // dispatch) overlaps better with more in flight (docs/decisions/0032).
    jobWorkerConcurrency: int('JOB_WORKER_CONCURRENCY', 16, 1, 256),
    jobGlobalConcurrency: int(renamed('JOB_GLOBAL_CONCURRENCY', 'BATCH_GLOBAL_CONCURRENCY'), 256, 1, 100_000),
    creditLeaseSeconds: int('CREDIT_LEASE_SECONDS', 600, 5, 86_400),
    creditLeaseIdleMs: int('CREDIT_LEASE_IDLE_MS', 2000, 10, 600_000),
    jobLeaseSeconds: int('JOB_LEASE_SECONDS', 30, 2, 3600),
    jobMaxRuntimeSeconds: int('JOB_MAX_RUNTIME_SECONDS', 330, 5, 3600),
    jobMaxRetries: int('JOB_MAX_RETRIES', 1, 0, 10),
    jobSweepIntervalMs: int(renamed('JOB_SWEEP_INTERVAL_MS', 'BATCH_SWEEP_INTERVAL_MS'), 2000, 100, 600_000),
    retentionSweepIntervalSeconds: int('RETENTION_SWEEP_INTERVAL_SECONDS', 600, 1, 86_400),
    publicBaseUrl: (url('PUBLIC_BASE_URL', ['http:', 'https:']) ?? `http://localhost:${str('PORT') ?? '8080'}`).replace(/\/+$/, ''),
    webhookTimeoutMs: int('WEBHOOK_TIMEOUT_MS', 10_000, 100, 120_000),
    webhookLeaseMarginMs: int('WEBHOOK_LEASE_MARGIN_MS', 3000, 1000, 600_000),
    webhookPollIntervalMs: int('WEBHOOK_POLL_INTERVAL_MS', 1000, 50, 60_000),
    webhookSecretKeys: parseSecretKeys(str('WEBHOOK_SECRET_KEYS'), problems),
    viabilityConcurrency: int('VIABILITY_CONCURRENCY', 4, 1, 256),
    viabilityClientConcurrency: int('VIABILITY_CLIENT_CONCURRENCY', 2, 1, 256),
    viabilityLeaseSeconds: int('VIABILITY_LEASE_SECONDS', 6, 3, 3600),
    viabilityPollIntervalMs: int('VIABILITY_POLL_INTERVAL_MS', 1000, 50, 60_000),
    viabilityMaxAttempts: int('VIABILITY_MAX_ATTEMPTS', 3, 1, 10),
    discoveryConcurrency: int('DISCOVERY_CONCURRENCY', 16, 1, 256),
    discoveryHostConcurrency: int('DISCOVERY_HOST_CONCURRENCY', 4, 1, 64),
    ignoreRobotsAllowed: ignoreRobotsRaw === 'true' || ignoreRobotsRaw === '1',
    discoveryLeaseSeconds: int('DISCOVERY_LEASE_SECONDS', 5, 2, 600),
  };
  // Several processes share one database: each must hold the same key ring, so it cannot be made up locally.
  if (config.databaseUrl && config.webhookSecretKeys.length === 0) {
    problems.push(
      "WEBHOOK_SECRET_KEYS is required with DATABASE_URL: webhook signing secrets are encrypted at rest (format \"id:base64-32-bytes[,older-id:…]\"; make one with: node -e \"console.log('k1:' + require('crypto').randomBytes(32).toString('base64'))\")",
    );
  }
  if (config.adminToken && config.adminToken === config.demoToken) problems.push('ADMIN_TOKEN and DEMO_TOKEN must differ');
  if (problems.length > 0) throw new ConfigError(problems);
  return config;
}

/** `https://app.example.com,http://localhost:3000`: exact origins (scheme, host, port), or `*`. */
function parseCorsOrigins(raw: string | undefined, problems: string[]): string[] {
  const origins = (raw ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  for (const origin of origins) {
    if (origin === '*') continue;
    let parsed: URL | null = null;
    try {
      parsed = new URL(origin);
    } catch {
      // reported below
    }
    if (!parsed || !['http:', 'https:'].includes(parsed.protocol) || parsed.origin !== origin)
      problems.push(`CORS_ORIGINS entry "${origin}" is not an origin like https://app.example.com`);
  }
  return origins;
}

/** `id:base64key,…` with 32-byte keys and distinct ids. */
function parseSecretKeys(raw: string | undefined, problems: string[]): Array<{ id: string; key: Buffer }> {
  const keys: Array<{ id: string; key: Buffer }> = [];
  for (const entry of (raw ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)) {
    const match = /^([A-Za-z0-9_-]{1,32}):([A-Za-z0-9+/=_-]+)$/.exec(entry);
    const key = match ? Buffer.from(match[2], 'base64') : null;
    if (!match || key!.length !== 32) {
      problems.push(
        `WEBHOOK_SECRET_KEYS entries must be "id:base64" with a 32-byte key (an entry starting "${entry.slice(0, 6)}…" is not)`,
      );
      continue;
    }
    if (keys.some((k) => k.id === match[1])) problems.push(`WEBHOOK_SECRET_KEYS names key "${match[1]}" twice`);
    keys.push({ id: match[1], key: key! });
  }
  return keys;
}

function parseTargetAllowlist(raw: string | undefined, problems: string[]): string[] {
  const entries = (raw ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  for (const entry of entries) {
    const cidr = entry.includes('/');
    const valid = cidr ? ipaddr.isValidCIDR(entry) : /^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+)(:\d{1,5})?$/.test(entry);
    if (!valid) problems.push(`TARGET_ALLOWLIST entry "${entry}" must be host, host:port or a CIDR range`);
  }
  return entries;
}

function parseProxyPool(raw: string | undefined, problems: string[]): Record<string, string[]> {
  if (raw === undefined) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    problems.push('PROXY_POOL must be a JSON object');
    return {};
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    problems.push('PROXY_POOL must be a JSON object of country code or "any" to an array of proxy URLs');
    return {};
  }
  const pool: Record<string, string[]> = {};
  for (const [key, value] of Object.entries(parsed)) {
    if (key !== 'any' && !/^[A-Z]{2}$/.test(key)) {
      problems.push(`PROXY_POOL key "${key}" must be "any" or an upper-case ISO country code`);
      continue;
    }
    if (!Array.isArray(value) || value.some((u) => typeof u !== 'string' || !/^(https?|socks5?):\/\//.test(u))) {
      problems.push(`PROXY_POOL["${key}"] must be an array of proxy URLs (http://user:pass@host:port)`);
      continue;
    }
    pool[key] = value as string[];
  }
  return pool;
}

export function runtimeModeOf(config: Pick<PlatformConfig, 'natsUrl'>): RuntimeMode {
  return config.natsUrl ? 'distributed' : 'embedded';
}

/**
 * Loads the config or ends the process with a single line that names every problem, as the
 * operator contract requires (exit code 1).
 */
export function loadPlatformConfigOrExit(env: Env = process.env): PlatformConfig {
  try {
    return loadPlatformConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
}
