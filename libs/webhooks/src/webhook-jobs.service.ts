import { AppConfig, randomBase62 } from '@gateway/common';
import { BudgetCrossing, QueueName, WebhookJob } from '@gateway/queue';
import { InjectQueue } from '@nestjs/bullmq';
import { Injectable } from '@nestjs/common';
import { JobsOptions, Queue } from 'bullmq';
import { budgetEventOf, budgetWebhookIdOf } from './budget-event';
import type { WebhookEventType } from './webhook-event';

/** Finished jobs stay this long: the job id keeps a rerun task from announcing itself twice meanwhile. */
const KEEP_SECONDS = 7 * 24 * 3600;

/** Backoff strategy name the webhooks worker answers with the retry schedule. */
export const WEBHOOK_BACKOFF = 'webhook-schedule';

/** Enqueues webhook deliveries on the `webhooks` queue (docs/contracts.md), from workers and from the console. */
@Injectable()
export class WebhookJobs {
  private readonly attempts: number;

  constructor(
    config: AppConfig,
    @InjectQueue(QueueName.Webhooks) private readonly queue: Queue<WebhookJob>,
  ) {
    this.attempts = config.webhookSchedule.length;
  }

  /**
   * The event of a finished task, with the full retry schedule; one job per task, however often it ran. A traced
   * task's `traceparent` makes its delivery a span of the same trace.
   */
  async enqueue(appId: string, taskId: string, event: WebhookEventType, traceparent?: string): Promise<void> {
    await this.queue.add(
      event,
      { appId, taskId, event, ...(traceparent ? { traceparent } : {}) },
      this.options(`webhook-${taskId}`, this.attempts),
    );
  }

  /** A budget reaching 80 % or 100 % in its period; one job per budget, period and threshold. */
  async enqueueBudget(appId: string, taskId: string, budget: BudgetCrossing): Promise<void> {
    const event = budgetEventOf(budget);
    const jobId = `webhook-${budgetWebhookIdOf(appId, budget)}`;
    await this.queue.add(event, { appId, taskId, event, budget }, this.options(jobId, this.attempts));
  }

  /** Sent again from the console: one attempt, whose result the console lists like any other. */
  async redeliver(appId: string, taskId: string, event: WebhookEventType): Promise<void> {
    await this.queue.add(
      event,
      { appId, taskId, event, redelivery: true },
      this.options(`webhook-${taskId}-again-${randomBase62(8)}`, 1),
    );
  }

  private options(jobId: string, attempts: number): JobsOptions {
    return {
      jobId,
      attempts,
      backoff: { type: WEBHOOK_BACKOFF },
      removeOnComplete: { age: KEEP_SECONDS },
      removeOnFail: { age: KEEP_SECONDS },
    };
  }
}
