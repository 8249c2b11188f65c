import { Injectable } from '@nestjs/common';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { ApplicationCounter, ApplicationLabels } from './application-metrics';

const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300];
const OVERHEAD_BUCKETS = [0.0005, 0.001, 0.002, 0.004, 0.008, 0.016, 0.032, 0.064, 0.128, 0.256];

export type GaugeCollector = () => Promise<void> | void;

/**
 * Every metric of the system (docs/operations.md), in one registry per process. Dashboards in grafana/ use these names.
 * A registry per instance (not prom-client's global) lets several apps live in one process, as in the e2e suite.
 */
/**
 * Past the readiness collector's own 3 s, so that it has set gateway_ready to 0 by then; well inside Prometheus's
 * default scrape timeout of 10 s.
 */
const SCRAPE_COLLECTORS_TIMEOUT_MS = 4_000;

@Injectable()
export class MetricsService {
  readonly registry = new Registry();

  readonly httpRequests = new Counter({
    name: 'gateway_http_requests_total',
    help: 'HTTP requests by route and status',
    labelNames: ['method', 'route', 'status_code'],
    registers: [this.registry],
  });
  readonly httpDuration = new Histogram({
    name: 'gateway_http_request_duration_seconds',
    help: 'HTTP request duration',
    labelNames: ['method', 'route', 'status_code'],
    buckets: LATENCY_BUCKETS,
    registers: [this.registry],
  });
  readonly overhead = new Histogram({
    name: 'gateway_overhead_seconds',
    help: 'Time spent in the gateway, excluding the provider call',
    labelNames: ['route'],
    buckets: OVERHEAD_BUCKETS,
    registers: [this.registry],
  });
  readonly syncWaiters = new Gauge({
    name: 'gateway_sync_waiters',
    help: 'Connections held open waiting for a task',
    registers: [this.registry],
  });
  readonly queueJobs = new Gauge({
    name: 'gateway_queue_jobs',
    help: 'Jobs per queue and state',
    labelNames: ['queue', 'state'],
    registers: [this.registry],
  });
  readonly queueWorkers = new Gauge({
    name: 'gateway_queue_workers',
    help: 'BullMQ workers connected to each queue (CLIENT LIST), across every worker process',
    labelNames: ['queue'],
    registers: [this.registry],
  });
  readonly redisMemoryUsed = new Gauge({
    name: 'gateway_redis_memory_used_bytes',
    help: 'Redis used_memory (INFO memory)',
    registers: [this.registry],
  });
  readonly redisMemoryMax = new Gauge({
    name: 'gateway_redis_memory_max_bytes',
    help: 'Redis maxmemory (INFO memory); 0: no limit',
    registers: [this.registry],
  });
  readonly redisMaxmemoryPolicy = new Gauge({
    name: 'gateway_redis_maxmemory_policy',
    help: "Redis maxmemory-policy: 1 for the policy in force; BullMQ needs 'noeviction'",
    labelNames: ['policy'],
    registers: [this.registry],
  });
  readonly ready = new Gauge({
    name: 'gateway_ready',
    help: 'The readiness check (/health/ready) at the last scrape: 1 ready, 0 not',
    registers: [this.registry],
  });
  readonly jobWait = new Histogram({
    name: 'gateway_job_wait_seconds',
    help: 'Time from enqueue to a worker starting the job',
    labelNames: ['queue'],
    buckets: LATENCY_BUCKETS,
    registers: [this.registry],
  });
  readonly jobDuration = new Histogram({
    name: 'gateway_job_duration_seconds',
    help: 'Job processing time',
    labelNames: ['queue', 'model', 'provider', 'outcome'],
    buckets: LATENCY_BUCKETS,
    registers: [this.registry],
  });
  readonly upstreamDuration = new Histogram({
    name: 'gateway_upstream_request_duration_seconds',
    help: 'Provider call latency per attempt',
    labelNames: ['provider', 'model', 'outcome'],
    buckets: LATENCY_BUCKETS,
    registers: [this.registry],
  });
  readonly upstreamErrors = new Counter({
    name: 'gateway_upstream_errors_total',
    help: 'Failed provider calls by reason',
    labelNames: ['provider', 'model', 'reason'],
    registers: [this.registry],
  });
  readonly tokens = new Counter({
    name: 'gateway_tokens_total',
    help: 'Tokens processed',
    labelNames: ['model', 'kind'],
    registers: [this.registry],
  });
  readonly images = new Counter({
    name: 'gateway_images_generated_total',
    help: 'Images delivered',
    labelNames: ['model'],
    registers: [this.registry],
  });
  readonly billed = new Counter({
    name: 'gateway_billed_amount_total',
    help: 'Amount billed, in the catalog currency',
    labelNames: ['model'],
    registers: [this.registry],
  });
  readonly upstreamComputed = new Counter({
    name: 'gateway_upstream_computed_total',
    help: 'What the gateway billed for upstream answers, by route and kind (tokens, images, cost in the catalog currency)',
    labelNames: ['model', 'route', 'kind'],
    registers: [this.registry],
  });
  readonly upstreamReported = new Counter({
    name: 'gateway_upstream_reported_total',
    help: 'What upstream answers stated they used, by route and kind (tokens, images, cost in the catalog currency)',
    labelNames: ['model', 'route', 'kind'],
    registers: [this.registry],
  });
  readonly upstreamSpent = new Counter({
    name: 'gateway_upstream_spent_total',
    help: 'Upstream calls that may have been billed while the caller got nothing from them (outcome spent)',
    labelNames: ['model', 'route'],
    registers: [this.registry],
  });
  readonly limitRejections = new Counter({
    name: 'gateway_limit_rejections_total',
    help: 'Requests refused by a limit',
    labelNames: ['code'],
    registers: [this.registry],
  });
  readonly webhookDeliveries = new Counter({
    name: 'gateway_webhook_deliveries_total',
    help: 'Webhook delivery attempts by outcome',
    labelNames: ['outcome'],
    registers: [this.registry],
  });

  /**
   * Per application, bounded (docs/operations.md, "Per-application metrics"): the first METRICS_APP_LABELS
   * applications a process sees are labelled by id, the rest share app="other".
   */
  private readonly applicationLabels = new ApplicationLabels();
  readonly appRequests = new ApplicationCounter(
    new Counter({
      name: 'gateway_app_requests_total',
      help: '/v1 requests per application (app="other" past the per-process limit)',
      labelNames: ['app'],
      registers: [this.registry],
    }),
    this.applicationLabels,
  );
  readonly appBilled = new ApplicationCounter(
    new Counter({
      name: 'gateway_app_billed_amount_total',
      help: 'Amount billed per application, in the catalog currency (app="other" past the per-process limit)',
      labelNames: ['app'],
      registers: [this.registry],
    }),
    this.applicationLabels,
  );
  readonly appLimitRejections = new ApplicationCounter(
    new Counter({
      name: 'gateway_app_limit_rejections_total',
      help: 'Requests refused by a limit, per application (app="other" past the per-process limit)',
      labelNames: ['app', 'code'],
      registers: [this.registry],
    }),
    this.applicationLabels,
    'code',
  );

  private readonly collectors: GaugeCollector[] = [];

  constructor() {
    collectDefaultMetrics({ register: this.registry });
  }

  setService(service: string): void {
    this.registry.setDefaultLabels({ service });
  }

  /** How many applications get an `app` label of their own in this process (METRICS_APP_LABELS). */
  limitApplicationLabels(limit: number): void {
    this.applicationLabels.setLimit(limit);
  }

  /** Gauges read at scrape time (queue depth, held connections) register their refresh here. */
  onScrape(collector: GaugeCollector): void {
    this.collectors.push(collector);
  }

  /**
   * Runs every collector, then renders. A collector still waiting after SCRAPE_COLLECTORS_TIMEOUT_MS (a queue
   * connection retries forever while Redis is away) leaves its gauges as they were, and the scrape answers anyway.
   */
  async render(): Promise<string> {
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, SCRAPE_COLLECTORS_TIMEOUT_MS);
    });
    const collected = Promise.all(this.collectors.map((collect) => Promise.resolve(collect()).catch(() => undefined)));
    await Promise.race([collected, deadline]).finally(() => clearTimeout(timer));
    return this.registry.metrics();
  }
}
