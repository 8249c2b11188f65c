import { AppConfig, inClientSpan, LOGGER, SecretBox, Tracing } from '@gateway/common';
import {
  ApplicationRecord,
  ApplicationsRepository,
  TaskRecord,
  TasksRepository,
  WebhookDeliveriesRepository,
  WebhookDeliveryAttempt,
} from '@gateway/db';
import { MetricsService } from '@gateway/metrics';
import { outboundPolicy } from '@gateway/outbound';
import { QueueName, WebhookJob } from '@gateway/queue';
import {
  budgetWebhookIdOf,
  buildBudgetEvent,
  buildWebhookEvent,
  retryDelayMs,
  signWebhookMessage,
  WEBHOOK_BACKOFF,
  WebhookSender,
  webhookIdOf,
  WebhookMessage,
  DeliveryResult,
  WebhookEventType,
} from '@gateway/webhooks';
import { Inject, Injectable, OnModuleDestroy } from '@nestjs/common';
import { context } from '@opentelemetry/api';
import { Job, WorkerOptions } from 'bullmq';
import { Logger } from 'pino';
import { QueueProcessor } from './queue-processor';

/**
 * Delivers task events to applications' callback URLs (docs/contracts.md): Standard Webhooks signatures with the Secret
 * Key, retries on the schedule for network errors, timeouts, 429 and 5xx, 410 disables the callback, and every
 * attempt is recorded in `webhook_deliveries`. The application is read at each attempt, so a changed URL or
 * Secret Key applies to the next attempt. An attempt that settled the event (delivered, gone, rejected) is kept on the
 * job in Redis before its record is written: if the write fails, the job's next run writes the record only, and the
 * receiver is never sent the event again because of it.
 */
@Injectable()
export class WebhooksProcessor implements QueueProcessor<QueueName.Webhooks>, OnModuleDestroy {
  readonly queue = QueueName.Webhooks;
  readonly settings: WorkerOptions['settings'];
  private readonly sender: WebhookSender;
  private readonly schedule: number[];

  constructor(
    config: AppConfig,
    private readonly applications: ApplicationsRepository,
    private readonly tasks: TasksRepository,
    private readonly deliveries: WebhookDeliveriesRepository,
    private readonly metrics: MetricsService,
    @Inject(LOGGER) private readonly logger: Logger,
    private readonly tracing: Tracing,
    private readonly box: SecretBox,
  ) {
    const schedule = config.webhookSchedule;
    this.schedule = schedule;
    // The wait the failed attempt recorded as its next try, so the console's time is the one BullMQ keeps.
    this.settings = {
      backoffStrategy: (attemptsMade: number, type?: string, error?: Error) =>
        type === WEBHOOK_BACKOFF ? ((error as RetryLater)?.retryInMs ?? retryDelayMs(schedule, attemptsMade)) : 0,
    };
    this.sender = new WebhookSender(outboundPolicy(config), config.WEBHOOK_TIMEOUT_MS);
  }

  async onModuleDestroy(): Promise<void> {
    await this.sender.close();
  }

  async process(job: Job<WebhookJob>): Promise<void> {
    const settled = settledAttempt(job.progress);
    if (settled) return this.conclude(settled);
    const { appId, taskId, event, redelivery = false, budget } = job.data;
    const attempt = job.attemptsMade + 1;
    const attempts = job.opts.attempts ?? 1;
    // A budget event carries its body's facts; it needs no task record (which may not be written yet).
    const [app, task, resultBody] = await Promise.all([
      this.applications.findById(appId),
      budget ? null : this.tasks.findById(taskId),
      budget ? null : this.tasks.findResult(taskId),
    ]);
    const base = {
      appId,
      taskId,
      event,
      webhookId: budget ? budgetWebhookIdOf(appId, budget) : webhookIdOf(taskId, event as WebhookEventType),
      url: app?.callbackUrl ?? '',
      attempt,
      attempts,
      redelivery,
    };

    const target = deliveryTarget(app, budget ? 'budget' : task, redelivery);
    if ('skipped' in target) {
      this.metrics.webhookDeliveries.inc({ outcome: 'skipped' });
      return this.conclude({ ...base, outcome: 'skipped', error: target.skipped, durationMs: 0 });
    }

    // The job's creation time, not the attempt's, so every attempt carries the same body.
    const body = JSON.stringify(
      budget
        ? buildBudgetEvent(appId, taskId, budget, new Date(job.timestamp))
        : buildWebhookEvent(
            { ...(target.task as TaskRecord), result: resultBody ?? undefined },
            new Date(job.timestamp),
          ),
    );
    const message = signWebhookMessage(this.box.open(target.app.secretKeyEnc), base.webhookId, body);
    const result = await this.send(target.callbackUrl, message, job.data.traceparent);
    this.metrics.webhookDeliveries.inc({ outcome: result.outcome });
    const made: WebhookDeliveryAttempt = {
      ...base,
      url: target.callbackUrl,
      outcome: result.outcome,
      httpStatus: result.httpStatus,
      error: result.error,
      durationMs: result.durationMs,
      responseSnippet: result.responseSnippet,
      createdAt: new Date(),
    };
    if (result.outcome === 'retry' && attempt < attempts)
      made.nextAttemptAt = new Date(Date.now() + retryDelayMs(this.schedule, attempt));
    if (result.outcome !== 'retry') await job.updateProgress({ settled: made } satisfies SettledProgress);
    await this.conclude(made);
  }

  /**
   * One attempt; for a traced task, a client span of the task's trace, its `traceparent` sent to the receiver (and
   * the attempt's log lines naming the trace).
   */
  private send(url: string, message: WebhookMessage, traceparent: string | undefined): Promise<DeliveryResult> {
    if (!traceparent || !this.tracing.enabled) return this.sender.send(url, message);
    return context.with(this.tracing.continue(traceparent), () =>
      inClientSpan(
        { method: 'POST', url, peer: 'webhook' },
        (traceHeaders) => this.sender.send(url, message, traceHeaders),
        (result) => ({
          status: result.httpStatus,
          error: result.outcome === 'delivered' ? undefined : (result.error ?? result.outcome),
        }),
      ),
    );
  }

  /** Records the attempt, then acts on its outcome; a failed write is thrown, so the job runs again. */
  private async conclude(attempt: WebhookDeliveryAttempt): Promise<void> {
    const { appId, taskId } = attempt;
    try {
      await this.deliveries.record(attempt);
    } catch (error) {
      this.logger.warn(
        { appId, taskId, outcome: attempt.outcome, err: (error as Error).message },
        'could not record the webhook attempt; the record is retried, the event is not sent again',
      );
      throw error;
    }
    if (attempt.outcome === 'gone') {
      await this.applications.disableCallback(appId, attempt.url);
      this.logger.warn({ appId, taskId }, 'callback answered 410 Gone; webhooks disabled until the URL is saved again');
    }
    // Thrown, BullMQ schedules the next attempt by the backoff strategy; on the last one the job just fails.
    if (attempt.outcome === 'retry')
      throw new RetryLater(
        `webhook attempt ${attempt.attempt} failed: ${attempt.error ?? `HTTP ${attempt.httpStatus ?? 'error'}`}`,
        attempt.nextAttemptAt && Math.max(0, new Date(attempt.nextAttemptAt).getTime() - Date.now()),
      );
  }
}

/** A failed attempt, with the wait before the next one that its record shows. */
class RetryLater extends Error {
  constructor(
    message: string,
    readonly retryInMs: number | undefined,
  ) {
    super(message);
  }
}

/** What a run keeps on its job (BullMQ's progress, in Redis) once the event is settled, until its record is written. */
interface SettledProgress {
  settled: WebhookDeliveryAttempt;
}

/** The settled attempt a previous run of this job could not record, if any (its date comes back from JSON). */
function settledAttempt(progress: unknown): WebhookDeliveryAttempt | undefined {
  const settled = (progress as Partial<SettledProgress> | undefined)?.settled;
  if (typeof settled !== 'object' || settled === null) return undefined;
  return { ...settled, createdAt: new Date(settled.createdAt ?? Date.now()) };
}

/** Where an attempt goes, or why it is not made at all. */
function deliveryTarget(
  app: ApplicationRecord | null,
  task: TaskRecord | 'budget' | null,
  redelivery: boolean,
): { app: ApplicationRecord; task: TaskRecord | 'budget'; callbackUrl: string } | { skipped: string } {
  if (!app?.callbackUrl) return { skipped: 'the application has no callback URL' };
  if (app.status !== 'active') return { skipped: 'the application is revoked' };
  if (app.callbackDisabledAt && !redelivery)
    return { skipped: 'the callback was disabled after the receiver answered 410 Gone' };
  if (!task) return { skipped: 'the task record is missing' };
  return { app, task, callbackUrl: app.callbackUrl };
}
