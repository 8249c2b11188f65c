import { loadConfig } from './app-config';

const MASTER_KEY = 'b'.repeat(64);

describe('loadConfig', () => {
  it('applies defaults and reads upstreams from UPSTREAM_<NAME>_BASE_URL / _API_KEY', () => {
    const config = loadConfig({
      MASTER_KEY,
      UPSTREAM_MY_VLLM_BASE_URL: 'http://10.0.0.5:8000/v1/',
      UPSTREAM_MY_VLLM_API_KEY: 'k',
    });
    expect(config.SYNC_TIMEOUT_MS).toBe(300_000);
    expect(config.upstreams.my_vllm).toEqual({ baseUrl: 'http://10.0.0.5:8000/v1', apiKey: 'k' });
  });

  it('refuses bad values with every problem listed', () => {
    const attempt = () => loadConfig({ MASTER_KEY: 'short', API_PORT: 'x' });
    expect(attempt).toThrow(/MASTER_KEY must be 64 hex characters/);
    expect(attempt).toThrow(/API_PORT must be an integer/);
  });

  it('reads the deprecated QUEUE_PREFIX as REDIS_PREFIX when REDIS_PREFIX is unset, with a warning', () => {
    const config = loadConfig({ MASTER_KEY, QUEUE_PREFIX: 'legacy' });
    expect(config.REDIS_PREFIX).toBe('legacy');
    expect(config.startupWarnings).toEqual([
      'QUEUE_PREFIX is deprecated; rename it to REDIS_PREFIX (same value, same meaning)',
    ]);
  });

  it('prefers REDIS_PREFIX over QUEUE_PREFIX and says QUEUE_PREFIX is ignored', () => {
    const config = loadConfig({ MASTER_KEY, REDIS_PREFIX: 'current', QUEUE_PREFIX: 'legacy' });
    expect(config.REDIS_PREFIX).toBe('current');
    expect(config.startupWarnings).toEqual([
      'QUEUE_PREFIX is ignored because REDIS_PREFIX is set; remove QUEUE_PREFIX',
    ]);
  });

  it('defaults REDIS_PREFIX to gw with no warning, and checks it like any setting', () => {
    const config = loadConfig({ MASTER_KEY });
    expect(config.REDIS_PREFIX).toBe('gw');
    expect(config.startupWarnings).toEqual([]);
    expect(() => loadConfig({ MASTER_KEY, QUEUE_PREFIX: 'a:b' })).toThrow(
      /REDIS_PREFIX may hold letters, digits, _ and -/,
    );
  });

  it('parses WORKER_QUEUES', () => {
    expect(loadConfig({ MASTER_KEY, WORKER_QUEUES: 'chat,embeddings' }).workerQueues).toEqual(['chat', 'embeddings']);
    expect(loadConfig({ MASTER_KEY }).workerQueues).toBe('all');
  });

  it('keeps /metrics and /health/ready off the public port: METRICS_PORT on 127.0.0.1, never API_PORT', () => {
    const config = loadConfig({ MASTER_KEY });
    expect([config.METRICS_HOST, config.METRICS_PORT]).toEqual(['127.0.0.1', 3003]);
    expect(() => loadConfig({ MASTER_KEY, API_PORT: 8080, METRICS_PORT: 8080 })).toThrow(
      /METRICS_PORT must differ from API_PORT \(8080\)/,
    );
    expect(loadConfig({ MASTER_KEY, API_PORT: 0, METRICS_PORT: 0 }).METRICS_PORT).toBe(0);
  });

  it('checks WEBHOOK_RETRY_SCHEDULE with the parser the webhooks use, and keeps what it read', () => {
    // Decimals are part of the grammar: start-up must not refuse what the webhook jobs would run.
    expect(loadConfig({ MASTER_KEY, WEBHOOK_RETRY_SCHEDULE: '0, 1.5s, 2m' }).webhookSchedule).toEqual([
      0, 1_500, 120_000,
    ]);
    expect(loadConfig({ MASTER_KEY }).webhookSchedule).toHaveLength(10);
    // More than 20 attempts is refused at start-up, not when the first webhook job is built.
    expect(() => loadConfig({ MASTER_KEY, WEBHOOK_RETRY_SCHEDULE: Array(21).fill('1s').join(',') })).toThrow(
      /WEBHOOK_RETRY_SCHEDULE: webhook retry schedule has 21 entries; at most 20 are allowed/,
    );
    expect(() => loadConfig({ MASTER_KEY, WEBHOOK_RETRY_SCHEDULE: '0,5x' })).toThrow(
      /WEBHOOK_RETRY_SCHEDULE: webhook retry schedule entry 2 "5x" is not a delay/,
    );
  });
});
