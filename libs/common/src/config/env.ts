import { Type } from 'class-transformer';
import { IsIn, IsInt, IsOptional, IsString, Matches, Max, Min } from 'class-validator';

/** Every environment variable the gateway reads, with its default and its rule. */
export class Env {
  @IsIn(['development', 'production', 'test'])
  NODE_ENV: 'development' | 'production' | 'test' = 'development';

  @IsIn(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
  LOG_LEVEL = 'info';

  @IsString()
  API_HOST = '127.0.0.1';

  @Type(() => Number) @IsInt() @Min(0) @Max(65535)
  API_PORT = 3000;

  @IsString()
  WORKER_HOST = '127.0.0.1';

  /** The worker serves /health and /metrics here. */
  @Type(() => Number) @IsInt() @Min(0) @Max(65535)
  WORKER_PORT = 3001;

  @Matches(/^rediss?:\/\//, { message: 'REDIS_URL must be a redis:// or rediss:// URL' })
  REDIS_URL = 'redis://127.0.0.1:6390';

  @Matches(/^mongodb(\+srv)?:\/\//, { message: 'MONGODB_URI must be a mongodb:// URL' })
  MONGODB_URI = 'mongodb://127.0.0.1:27027/gateway';

  /** 32 bytes as 64 hex characters; encrypts Secret Keys at rest (AES-256-GCM). */
  @Matches(/^[0-9a-fA-F]{64}$/, { message: 'MASTER_KEY must be 64 hex characters (32 random bytes)' })
  MASTER_KEY: string;

  /** Prefix of every BullMQ key and reply channel; lets several deployments share one Redis. */
  @Matches(/^[A-Za-z0-9_-]+$/, { message: 'QUEUE_PREFIX may hold letters, digits, _ and -' })
  QUEUE_PREFIX = 'gw';

  @IsString()
  MODELS_CONFIG = 'config/models.yaml';

  /** How long a synchronous call holds the connection before answering 504 with the task id. */
  @Type(() => Number) @IsInt() @Min(100)
  SYNC_TIMEOUT_MS = 300_000;

  /** Safety net under the reply channel: pending waits re-check their task this often. */
  @Type(() => Number) @IsInt() @Min(50)
  WAIT_RECHECK_INTERVAL_MS = 5_000;

  /** Largest accepted HTTP body. */
  @Type(() => Number) @IsInt() @Min(1024)
  BODY_LIMIT_BYTES = 4 * 1024 * 1024;

  /** Comma-separated queue names this worker serves, or `all`. */
  @Matches(/^(all|[a-z-]+(,[a-z-]+)*)$/, { message: 'WORKER_QUEUES must be `all` or a comma-separated list of queue names' })
  WORKER_QUEUES = 'all';

  /** Jobs one worker process runs at once per queue (upstream calls are I/O bound). */
  @Type(() => Number) @IsInt() @Min(1) @Max(1000)
  WORKER_CONCURRENCY = 64;

  /** BullMQ attempts for failures other than a final provider answer (e.g. a database hiccup). */
  @Type(() => Number) @IsInt() @Min(1) @Max(10)
  JOB_ATTEMPTS = 3;

  /** A job whose worker stopped renewing its lock is taken over after this long. */
  @Type(() => Number) @IsInt() @Min(1000)
  JOB_LOCK_MS = 30_000;

  @Type(() => Number) @IsInt() @Min(100)
  UPSTREAM_TIMEOUT_MS = 120_000;

  /** Retries per route for network errors, 429 and 5xx before the next route is tried. */
  @Type(() => Number) @IsInt() @Min(0) @Max(10)
  UPSTREAM_RETRIES = 2;

  @Type(() => Number) @IsInt() @Min(1)
  UPSTREAM_RETRY_BASE_MS = 250;

  /** Successful key look-ups are served from memory this long; stale entries still serve while MongoDB is down. */
  @Type(() => Number) @IsInt() @Min(0)
  AUTH_CACHE_TTL_MS = 30_000;

  /** A concurrency slot whose task never reports back (its processes died) frees itself after this long. */
  @Type(() => Number) @IsInt() @Min(1000)
  CONCURRENCY_LEASE_MS = 15 * 60_000;

  /** Daily usage roll-ups are written this often. */
  @Type(() => Number) @IsInt() @Min(50)
  USAGE_FLUSH_MS = 1_000;

  /** Peers (IPs or CIDRs, comma-separated) whose X-Forwarded-For is believed; empty: none. */
  @IsString()
  TRUSTED_PROXIES = '';

  @IsOptional() @IsString()
  INSTANCE_ID?: string;
}
