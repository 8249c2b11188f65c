import { AppConfig, LOGGER } from '@gateway/common';
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
import { SecretBox } from '@gateway/tenancy';
import {
  buildWebhookEvent,
  parseRetrySchedule,
  retryDelayMs,
  signWebhookMessage,
  WEBHOOK_BACKOFF,
  WebhookSender,
  webhookIdOf,
} from '@gateway/webhooks';
import { Inject, Injectable, OnModuleDestroy } from '@nestjs/common';
import { Job, WorkerOptions } from 'bullmq';
import { Logger } from 'pino';
import { QueueProcessor } from './queue-processor';

/**
 * Delivers task events to applications' callback URLs (docs/contracts.md): Standard Webhooks signatures with the Secret
 * Key, retries on the schedule for network errors, timeouts, 429 and 5xx, 410 disables the callback, and every
 * attempt is recorded in `webhook_deliveries`. The application is read at each attempt, so a changed URL or
 * Secret Key applies to the next attempt.
 */
@Injectable()
export class WebhooksProcessor implements QueueProcessor<QueueName.Webhooks>, OnModuleDestroy {
  readonly queue = QueueName.Webhooks;
  readonly settings: WorkerOptions['settings'];
  private readonly sender: WebhookSender;
  private readonly box: SecretBox;

  constructor(
    config: AppConfig,
    private readonly applications: ApplicationsRepository,
    private readonly tasks: TasksRepository,
    private readonly deliveries: WebhookDeliveriesRepository,
    private readonly metrics: MetricsService,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {
    const schedule = parseRetrySchedule(config.WEBHOOK_RETRY_SCHEDULE);
    this.settings = {
      backoffStrategy: (attemptsMade: number, type?: string) =>
        type === WEBHOOK_BACKOFF ? retryDelayMs(schedule, attemptsMade) : 0,
    };
    this.sender = new WebhookSender(outboundPolicy(config), config.WEBHOOK_TIMEOUT_MS);
    this.box = new SecretBox(config.masterKeys);
  }

  async onModuleDestroy(): Promise<void> {
    await this.sender.close();
  }

  async process(job: Job<WebhookJob>): Promise<void> {
    const { appId, taskId, event, redelivery = false } = job.data;
    const attempt = job.attemptsMade + 1;
    const [app, task, resultBody] = await Promise.all([
      this.applications.findById(appId),
      this.tasks.findById(taskId),
      this.tasks.findResult(taskId),
    ]);
    const base = {
      appId,
      taskId,
      event,
      webhookId: webhookIdOf(taskId, event),
      url: app?.callbackUrl ?? '',
      attempt,
      redelivery,
    };

    const target = deliveryTarget(app, task, redelivery);
    if ('skipped' in target) return this.record({ ...base, outcome: 'skipped', error: target.skipped, durationMs: 0 });

    // The job's creation time, not the attempt's, so every attempt carries the same body.
    const body = JSON.stringify(
      buildWebhookEvent({ ...target.task, result: resultBody ?? undefined }, new Date(job.timestamp)),
    );
    const message = signWebhookMessage(this.box.open(target.app.secretKeyEnc), base.webhookId, body);
    const result = await this.sender.send(target.callbackUrl, message);
    await this.record({
      ...base,
      outcome: result.outcome,
      httpStatus: result.httpStatus,
      error: result.error,
      durationMs: result.durationMs,
      responseSnippet: result.responseSnippet,
    });

    if (result.outcome === 'gone') {
      await this.applications.disableCallback(appId, target.callbackUrl);
      this.logger.warn({ appId, taskId }, 'callback answered 410 Gone; webhooks disabled until the URL is saved again');
    }
    // Thrown, BullMQ schedules the next attempt by the backoff strategy; on the last one the job just fails.
    if (result.outcome === 'retry')
      throw new Error(`webhook attempt ${attempt} failed: ${result.error ?? `HTTP ${result.httpStatus}`}`);
  }

  private async record(attempt: WebhookDeliveryAttempt): Promise<void> {
    this.metrics.webhookDeliveries.inc({ outcome: attempt.outcome });
    await this.deliveries.record(attempt);
  }
}

/** Where an attempt goes, or why it is not made at all. */
function deliveryTarget(
  app: ApplicationRecord | null,
  task: TaskRecord | null,
  redelivery: boolean,
): { app: ApplicationRecord; task: TaskRecord; callbackUrl: string } | { skipped: string } {
  if (!app?.callbackUrl) return { skipped: 'the application has no callback URL' };
  if (app.status !== 'active') return { skipped: 'the application is revoked' };
  if (app.callbackDisabledAt && !redelivery)
    return { skipped: 'the callback was disabled after the receiver answered 410 Gone' };
  if (!task) return { skipped: 'the task record is missing' };
  return { app, task, callbackUrl: app.callbackUrl };
}
