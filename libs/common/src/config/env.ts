import { Transform, Type } from 'class-transformer';
import { IsBoolean, IsIn, IsInt, IsOptional, IsString, Matches, Max, Min } from 'class-validator';
// Shared with the scripts (scripts/processes.js), which start the embedded Redis and database on these ports.
import DEFAULT_PORTS from './default-ports.json';
// Shared with scripts/start.js, which gives the api and the worker this long to stop before it kills them.
import SHUTDOWN_DEFAULTS from './shutdown-defaults.json';
import { DEFAULT_WEBHOOK_SCHEDULE } from './webhook-schedule';

/** Every environment variable the gateway reads, with its default and its rule. */
export class Env {
  @IsIn(['development', 'production', 'test'])
  NODE_ENV: 'development' | 'production' | 'test' = 'development';

  @IsIn(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
  LOG_LEVEL = 'info';

  @IsString()
  API_HOST = '127.0.0.1';

  @Type(() => Number)
  @IsInt()
  @Min(0)
  @Max(65535)
  API_PORT = DEFAULT_PORTS.api;

  /** The api's operations listener (/metrics, /health/ready): a private address, never the public port's. */
  @IsString()
  METRICS_HOST = '127.0.0.1';

  @Type(() => Number)
  @IsInt()
  @Min(0)
  @Max(65535)
  METRICS_PORT = DEFAULT_PORTS.metrics;

  @IsString()
  WORKER_HOST = '127.0.0.1';

  /** The worker's only listener, its operations listener: /metrics, /health/ready, /health/live. */
  @Type(() => Number)
  @IsInt()
  @Min(0)
  @Max(65535)
  WORKER_PORT = DEFAULT_PORTS.worker;

  /**
   * Applications with an `app` label of their own on the per-application metrics of one process; the ones seen after
   * share app="other", so the series count stays bounded (docs/operations.md). Kept equal to DEFAULT_APPLICATION_LABELS.
   */
  @Type(() => Number)
  @IsInt()
  @Min(0)
  @Max(10_000)
  METRICS_APP_LABELS = 100;

  @Matches(/^rediss?:\/\//, { message: 'REDIS_URL must be a redis:// or rediss:// URL' })
  REDIS_URL = `redis://127.0.0.1:${DEFAULT_PORTS.redis}`;

  /**
   * Redis Sentinel: comma-separated sentinel host:port list; with it, REDIS_SENTINEL_NAME names the monitored master
   * and REDIS_URL gives only the master's credentials and TLS (readRedisTopology).
   */
  @IsOptional()
  @IsString()
  REDIS_SENTINELS?: string;

  @IsOptional()
  @IsString()
  REDIS_SENTINEL_NAME?: string;

  /** The sentinels' own password (`requirepass` of the sentinels), when they have one. */
  @IsOptional()
  @IsString()
  REDIS_SENTINEL_PASSWORD?: string;

  /**
   * Redis Cluster: comma-separated seed nodes (host:port). Every key is then under the hash tag `{REDIS_PREFIX}`, on
   * one slot, as the gateway's multi-key scripts and BullMQ need (docs/operations.md).
   */
  @IsOptional()
  @IsString()
  REDIS_CLUSTER_NODES?: string;

  @Matches(/^mongodb(\+srv)?:\/\//, { message: 'MONGODB_URI must be a mongodb:// URL' })
  MONGODB_URI = `mongodb://127.0.0.1:${DEFAULT_PORTS.mongodb}/gateway`;

  /**
   * Master keys, newest first, comma-separated, each 32 bytes as 64 hex characters: the first seals Secret Keys at
   * rest (AES-256-GCM) and signs file URLs, every one opens and verifies. Read by readMasterKeys into
   * `AppConfig.masterKeys`.
   */
  @IsOptional()
  @IsString()
  MASTER_KEYS?: string;

  /** One master key: the same as MASTER_KEYS listing only it. */
  @IsOptional()
  @IsString()
  MASTER_KEY?: string;

  /**
   * Prefix of every Redis key and channel, BullMQ's included (docs/contracts.md#redis-keys); lets several deployments
   * share one Redis. Read from QUEUE_PREFIX, its former name, when unset (renamed-settings.ts).
   */
  @Matches(/^[A-Za-z0-9_-]+$/, { message: 'REDIS_PREFIX may hold letters, digits, _ and -' })
  REDIS_PREFIX = 'gw';

  @IsString()
  MODELS_CONFIG = 'config/models.yaml';

  /** How long a synchronous call holds the connection before answering 504 with the task id. */
  @Type(() => Number)
  @IsInt()
  @Min(100)
  SYNC_TIMEOUT_MS = 300_000;

  /** Safety net under the reply channel: pending waits re-check their task this often. */
  @Type(() => Number)
  @IsInt()
  @Min(50)
  WAIT_RECHECK_INTERVAL_MS = 5_000;

  /** Largest accepted HTTP body. */
  @Type(() => Number)
  @IsInt()
  @Min(1024)
  BODY_LIMIT_BYTES = 4 * 1024 * 1024;

  /**
   * How long a request body may take to arrive once its headers have: past it the api answers 408 and closes the
   * connection. It ends when the body is read, so a held synchronous call's wait is not part of it.
   */
  @Type(() => Number)
  @IsInt()
  @Min(100)
  BODY_TIMEOUT_MS = 60_000;

  /**
   * Who may create a console account: anyone (`open`), holders of an operator's invitation (`invite`), or nobody
   * (`closed`). The first operator signs up through a one-time setup link (gw operators:setup-link) under each.
   */
  @IsIn(['open', 'invite', 'closed'])
  CONSOLE_SIGNUP: 'open' | 'invite' | 'closed' = 'invite';

  /** Comma-separated queue names this worker serves, or `all`. */
  @Matches(/^(all|[a-z-]+(,[a-z-]+)*)$/, {
    message: 'WORKER_QUEUES must be `all` or a comma-separated list of queue names',
  })
  WORKER_QUEUES = 'all';

  /**
   * How a worker fetches jobs: `prompt` (PromptWorker, apps/worker/src/tasks/prompt-worker.ts: a job starts as soon as
   * it is fetched, through BullMQ internals pinned to one version) or `bullmq` (BullMQ's own Worker, unchanged): the
   * way back if an upgrade breaks what PromptWorker relies on.
   */
  @IsIn(['prompt', 'bullmq'])
  WORKER_FETCH: 'prompt' | 'bullmq' = 'prompt';

  /** Jobs one worker process runs at once per queue (upstream calls are I/O bound). */
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(10_000)
  WORKER_CONCURRENCY = 64;

  /** BullMQ attempts for failures other than a final provider answer (e.g. a database hiccup). */
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(10)
  JOB_ATTEMPTS = 3;

  /** A job whose worker stopped renewing its lock is taken over after this long. */
  @Type(() => Number)
  @IsInt()
  @Min(1000)
  JOB_LOCK_MS = 30_000;

  @Type(() => Number)
  @IsInt()
  @Min(100)
  UPSTREAM_TIMEOUT_MS = 120_000;

  /**
   * How long an image generation may take before its answer arrives (DashScope's own example waits 300 s). A
   * generation that runs out of it may still have been made and billed upstream, so it is not repeated.
   */
  @Type(() => Number)
  @IsInt()
  @Min(100)
  @Max(900_000)
  UPSTREAM_IMAGE_GENERATION_TIMEOUT_MS = 300_000;

  /** Each download of a generated image; a failed download is tried again (3 tries), never the generation. */
  @Type(() => Number)
  @IsInt()
  @Min(100)
  @Max(300_000)
  UPSTREAM_IMAGE_DOWNLOAD_TIMEOUT_MS = 30_000;

  /** Connections one worker process keeps to each OpenAI-compatible upstream origin; calls beyond them queue. */
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(20_000)
  UPSTREAM_CONNECTIONS = 512;

  /** Retries per route for network errors, 429 and 5xx before the next route is tried. */
  @Type(() => Number)
  @IsInt()
  @Min(0)
  @Max(10)
  UPSTREAM_RETRIES = 2;

  @Type(() => Number)
  @IsInt()
  @Min(1)
  UPSTREAM_RETRY_BASE_MS = 250;

  /** Successful key look-ups are served from memory this long; stale entries still serve while MongoDB is down. */
  @Type(() => Number)
  @IsInt()
  @Min(0)
  AUTH_CACHE_TTL_MS = 30_000;

  /** API keys' last-used times are noted in memory and written in one batch this often. */
  @Type(() => Number)
  @IsInt()
  @Min(100)
  KEY_LAST_USED_FLUSH_MS = 60_000;

  /** A concurrency slot whose task never reports back (its processes died) frees itself after this long. */
  @Type(() => Number)
  @IsInt()
  @Min(1000)
  CONCURRENCY_LEASE_MS = 15 * 60_000;

  /** Daily usage roll-ups are written this often. */
  @Type(() => Number)
  @IsInt()
  @Min(50)
  USAGE_FLUSH_MS = 1_000;

  /** Peers (IPs or CIDRs, comma-separated) whose X-Forwarded-For is believed; empty: none. */
  @IsString()
  TRUSTED_PROXIES = '';

  @IsOptional()
  @IsString()
  INSTANCE_ID?: string;

  /** Largest body of POST /v1/images/edits: three 10 MB images as base64 (4/3 larger) plus the rest. */
  @Type(() => Number)
  @IsInt()
  @Min(1024)
  IMAGE_BODY_LIMIT_BYTES = 48 * 1024 * 1024;

  /** Base64 inputs up to this size ride inside the job; larger ones wait in the GridFS `inputs` bucket. */
  @Type(() => Number)
  @IsInt()
  @Min(0)
  IMAGE_INLINE_INPUT_BYTES = 256 * 1024;

  /** Image-edit jobs one worker process runs at once: each holds decoded images in memory. */
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(64)
  IMAGE_EDIT_CONCURRENCY = 4;

  /** Lifetime of generated images and of their signed URLs, in seconds. */
  @Type(() => Number)
  @IsInt()
  @Min(1)
  IMAGE_URL_TTL = 24 * 3600;

  /**
   * Result bodies of finished tasks (embedding vectors, chat answers, image URLs) are kept this many seconds; the
   * task record, its usage, cost and billing stay. At least a day, so that an Idempotency-Key replay finds its body.
   */
  @Type(() => Number)
  @IsInt()
  @Min(86_400)
  TASK_RESULT_RETENTION = 7 * 86_400;

  /** Stored request images no job has claimed are deleted after this many seconds. */
  @Type(() => Number)
  @IsInt()
  @Min(60)
  IMAGE_INPUT_TTL = 24 * 3600;

  /**
   * OpenTelemetry: the OTLP/HTTP collector's base URL (spans go to its `/v1/traces`, as JSON). Unset, nothing is
   * traced and no tracing SDK is set up (docs/operations.md, "Tracing").
   */
  @Transform(({ value }: { value: unknown }) => (value === '' ? undefined : value))
  @IsOptional()
  @Matches(/^https?:\/\/[^?#]+$/, {
    message: 'OTEL_EXPORTER_OTLP_ENDPOINT must be an http:// or https:// URL such as http://collector:4318',
  })
  OTEL_EXPORTER_OTLP_ENDPOINT?: string;

  /** The `service.name` of the spans; default `model-gateway-api` and `model-gateway-worker`. */
  @Transform(({ value }: { value: unknown }) => (value === '' ? undefined : value))
  @IsOptional()
  @IsString()
  OTEL_SERVICE_NAME?: string;

  /** Origin put in front of signed file URLs (e.g. https://gateway.example.com); default: the origin the caller used. */
  @Transform(({ value }: { value: unknown }) => (value === '' ? undefined : value))
  @IsOptional()
  @Matches(/^https?:\/\/[^/?#]+$/, { message: 'PUBLIC_BASE_URL must be an origin such as https://gateway.example.com' })
  PUBLIC_BASE_URL?: string;

  /** Image URLs in requests are fetched with this timeout. */
  @Type(() => Number)
  @IsInt()
  @Min(100)
  IMAGE_FETCH_TIMEOUT_MS = 15_000;

  /** Development only: lets image URLs and callbacks reach loopback and private networks. */
  @Transform(({ value }) => value === true || value === 'true' || value === '1')
  @IsBoolean()
  OUTBOUND_ALLOW_PRIVATE = false;

  /** Private ranges (comma-separated CIDRs) outbound fetches may reach anyway, e.g. an internal image store. */
  @IsString()
  OUTBOUND_ALLOW_CIDRS = '';

  /**
   * Delays before each webhook attempt, comma-separated (ms, or with s/m/h): about 10 attempts over 3 days
   * (docs/contracts.md), each with ±20% jitter. Checked by its parser at load (AppConfig.webhookSchedule).
   */
  @IsString()
  WEBHOOK_RETRY_SCHEDULE = DEFAULT_WEBHOOK_SCHEDULE;

  /** One webhook attempt may take this long. */
  @Type(() => Number)
  @IsInt()
  @Min(100)
  WEBHOOK_TIMEOUT_MS = 15_000;

  /**
   * Run the local chat and embedding models (GGUF, CPU, fetched by scripts/models.js) in this worker; `off` for
   * upstream-only workers, which then never load them.
   */
  @IsIn(['on', 'off'])
  LOCAL_MODELS: 'on' | 'off' = 'on';

  /** Where scripts/models.js placed the model files and their manifest (models.json). */
  @IsString()
  LOCAL_MODELS_DIR = '.data/models';

  /** Chat generations the local model runs at once per worker (each in its own context); more wait in line. */
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(8)
  LOCAL_CHAT_CONCURRENCY = 1;

  /** Embedding batches the local model runs at once per worker. */
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(8)
  LOCAL_EMBEDDING_CONCURRENCY = 1;

  /** CPU threads per local inference; 0: one per core. */
  @Type(() => Number)
  @IsInt()
  @Min(0)
  @Max(256)
  LOCAL_MODEL_THREADS = 0;

  /** prompt_extend asks the local chat model for at most this long, then falls back to the rule-based rewrite. */
  @Type(() => Number)
  @IsInt()
  @Min(100)
  PROMPT_EXTEND_TIMEOUT_MS = 5_000;

  /** Expired images and abandoned inputs are swept this often. */
  @Type(() => Number)
  @IsInt()
  @Min(1000)
  MAINTENANCE_INTERVAL_MS = 10 * 60_000;

  /**
   * After SIGTERM, SIGINT or SIGHUP, the process exits this long after the signal even when closing has not finished
   * (a job still running, Redis or MongoDB not answering), with exit code 124 (libs/common/src/lifecycle). The default
   * stays under Kubernetes' 30 s grace period and docker-compose.yml's stop_grace_period.
   */
  @Type(() => Number)
  @IsInt()
  @Min(1000)
  SHUTDOWN_TIMEOUT_MS = SHUTDOWN_DEFAULTS.timeoutMs;
}
