import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { Env } from './env';
import { readMasterKeys } from './master-keys';
import { readRedisTopology, RedisTopology } from './redis-topology';
import { readRenamedSettings } from './renamed-settings';
import { readWebhookSchedule } from './webhook-schedule';

export interface UpstreamConfig {
  baseUrl: string;
  apiKey?: string;
}

export type EnvSource = Record<string, string | number | boolean | undefined>;

const UPSTREAM_BASE_URL = /^UPSTREAM_([A-Z0-9_]+)_BASE_URL$/;

/** The validated configuration of one process; injected everywhere instead of reading the environment. */
export class AppConfig extends Env {
  /** Upstreams by lower-case name, from UPSTREAM_<NAME>_BASE_URL / UPSTREAM_<NAME>_API_KEY. */
  upstreams: Record<string, UpstreamConfig>;
  /** Logged at start-up, never fatal: a setting read under its former name, for one. */
  startupWarnings: string[];
  /** The master keys, newest first, lower-case hex (readMasterKeys): the first seals and signs, each one opens. */
  masterKeys: string[];
  /** The newest master key (masterKeys[0]) whichever setting named it: what seals and signs; opening uses them all. */
  declare MASTER_KEY: string;
  /** One Redis server, a Sentinel-managed master or a Redis Cluster (readRedisTopology). */
  redisTopology: RedisTopology;
  /** WEBHOOK_RETRY_SCHEDULE in milliseconds, one wait per webhook attempt (parseRetrySchedule). */
  webhookSchedule: number[];

  /**
   * What every Redis key and BullMQ queue starts with: REDIS_PREFIX, or on a Redis Cluster the hash tag
   * `{REDIS_PREFIX}`, which puts every key on one slot (a tag is the first `{…}` of a key, so the application tags
   * inside limit keys no longer pick their slot there).
   */
  get redisKeyPrefix(): string {
    return this.redisTopology?.mode === 'cluster' ? `{${this.REDIS_PREFIX}}` : this.REDIS_PREFIX;
  }

  get workerQueues(): string[] | 'all' {
    return this.WORKER_QUEUES === 'all' ? 'all' : this.WORKER_QUEUES.split(',');
  }
}

/**
 * Reads and validates the environment once. `overrides` win over the process environment, which lets
 * tests run several differently configured instances in one process without touching `process.env`.
 */
export function loadConfig(overrides: EnvSource = {}): AppConfig {
  const { source, warnings } = readRenamedSettings({ ...process.env, ...overrides });
  const config = plainToInstance(AppConfig, source, { excludeExtraneousValues: false });
  const errors = validateSync(config, { whitelist: false });
  const masterKeys = readMasterKeys(config.MASTER_KEYS, config.MASTER_KEY);
  const listeners = listenerProblems(config);
  const redis = readRedisTopology(config);
  const webhooks = readWebhookSchedule(config.WEBHOOK_RETRY_SCHEDULE);
  const problems = [
    ...errors.flatMap((e) => Object.values(e.constraints ?? {})),
    ...masterKeys.problems,
    ...listeners,
    ...redis.problems,
    ...webhooks.problems,
  ];
  if (problems.length > 0) throw new Error(`Invalid configuration:\n  - ${problems.join('\n  - ')}`);
  config.upstreams = readUpstreams(source);
  config.masterKeys = masterKeys.keys;
  config.MASTER_KEY = masterKeys.keys[0];
  config.startupWarnings = warnings;
  config.redisTopology = redis.topology;
  config.webhookSchedule = webhooks.schedule;
  return config;
}

/** /metrics and /health/ready must not share the public port (0 picks a free port for each). */
function listenerProblems(config: Env): string[] {
  return config.METRICS_PORT !== 0 && config.METRICS_PORT === config.API_PORT
    ? [`METRICS_PORT must differ from API_PORT (${config.API_PORT}): /metrics and /health/ready are not public`]
    : [];
}

function readUpstreams(source: EnvSource): Record<string, UpstreamConfig> {
  const upstreams: Record<string, UpstreamConfig> = {};
  for (const [key, value] of Object.entries(source)) {
    const match = UPSTREAM_BASE_URL.exec(key);
    if (!match || typeof value !== 'string' || value.trim() === '') continue;
    const apiKey = source[`UPSTREAM_${match[1]}_API_KEY`];
    upstreams[match[1].toLowerCase()] = {
      baseUrl: value.replace(/\/+$/, ''),
      apiKey: typeof apiKey === 'string' && apiKey !== '' ? apiKey : undefined,
    };
  }
  return upstreams;
}
