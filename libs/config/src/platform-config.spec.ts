import { ConfigError, loadPlatformConfig, runtimeModeOf } from './platform-config';

describe(loadPlatformConfig.name, () => {
  it('applies the operator contract defaults with an empty environment', () => {
    const config = loadPlatformConfig({});
    expect(config).toMatchObject({
      port: 8080,
      host: '0.0.0.0',
      databaseUrl: null,
      natsUrl: null,
      targetAllowlist: [],
      proxyPool: {},
      webhookRetryDelaysSeconds: [60, 300, 1800, 7200, 43200],
      resultRetentionHours: 48,
      listingRetentionDays: 90,
      logLevel: 'info',
    });
    expect(runtimeModeOf(config)).toBe('embedded');
  });

  it('parses every variable it is given', () => {
    const config = loadPlatformConfig({
      PORT: '9000',
      NATS_URL: 'nats://127.0.0.1:4222',
      DATABASE_URL: 'postgresql://u@h/db',
      TARGET_ALLOWLIST: 'localhost:3000, 10.0.0.0/8',
      PROXY_POOL: '{"DE":["http://u:p@proxy:8000"],"any":["http://p2:1"]}',
      WEBHOOK_RETRY_DELAYS: '1,2',
      ADMIN_TOKEN: 'a'.repeat(20),
      WEBHOOK_SECRET_KEYS: `new:${Buffer.alloc(32, 1).toString('base64')},old:${Buffer.alloc(32, 2).toString('base64')}`,
    });
    expect(config.port).toBe(9000);
    expect(config.webhookSecretKeys.map((k) => [k.id, k.key.length])).toEqual([
      ['new', 32],
      ['old', 32],
    ]);
    expect(config.targetAllowlist).toEqual(['localhost:3000', '10.0.0.0/8']);
    expect(config.proxyPool.DE).toEqual(['http://u:p@proxy:8000']);
    expect(config.webhookRetryDelaysSeconds).toEqual([1, 2]);
    expect(runtimeModeOf(config)).toBe('distributed');
  });

  it('requires the webhook secret key ring with DATABASE_URL (replicas must share it)', () => {
    expect(() => loadPlatformConfig({ DATABASE_URL: 'postgresql://u@h/db' })).toThrow(/WEBHOOK_SECRET_KEYS is required with DATABASE_URL/);
    expect(loadPlatformConfig({}).webhookSecretKeys).toEqual([]);
  });

  it('reads a renamed variable under its former name when only that is set (a deployment mid-upgrade)', () => {
    expect(loadPlatformConfig({ BATCH_GLOBAL_CONCURRENCY: '40' }).jobGlobalConcurrency).toBe(40);
    expect(loadPlatformConfig({ BATCH_SWEEP_INTERVAL_MS: '700' }).jobSweepIntervalMs).toBe(700);
    expect(loadPlatformConfig({ JOB_GLOBAL_CONCURRENCY: '30', BATCH_GLOBAL_CONCURRENCY: '40' }).jobGlobalConcurrency).toBe(30);
    expect(() => loadPlatformConfig({ BATCH_SWEEP_INTERVAL_MS: '5' })).toThrow(/BATCH_SWEEP_INTERVAL_MS must be an integer/);
  });

  it('reports every bad variable at once, each by name', () => {
    let error: unknown;
    try {
      loadPlatformConfig({
        PORT: 'abc',
        NATS_URL: 'http://x',
        PROXY_POOL: '{"de":["x"]}',
        LOG_LEVEL: 'loud',
        ADMIN_TOKEN: 'short',
        TARGET_ALLOWLIST: 'ok.example:80,10.0.0.0/99',
        WEBHOOK_SECRET_KEYS: 'k1:c2hvcnQ=',
      });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const message = (error as ConfigError).message;
    for (const name of [
      'PORT',
      'NATS_URL',
      'PROXY_POOL',
      'LOG_LEVEL',
      'ADMIN_TOKEN',
      'TARGET_ALLOWLIST entry "10.0.0.0/99"',
      'WEBHOOK_SECRET_KEYS',
    ])
      expect(message).toContain(name);
    expect(message).not.toContain('ok.example');
    expect(message).not.toContain('\n');
  });
});
