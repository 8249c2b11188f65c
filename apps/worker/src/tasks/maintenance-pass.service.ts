import { AppConfig } from '@gateway/common';
import { BODY_RETENTION_DAYS } from '@gateway/contracts';
import { FeedSweeper, TaskBodiesRepository, TasksRepository, WebhookDeliveriesRepository } from '@gateway/db';
import { ImageStore } from '@gateway/imaging';
import { Injectable } from '@nestjs/common';

/** Webhook attempts stay listed in the console this long: the retry schedule spans about 3 days. */
const DELIVERY_HISTORY_MS = 30 * 24 * 3600 * 1000;
/** A pass stops starting new days of retention work after this long; the next pass carries on. */
const PASS_BUDGET_MS = 60_000;

/**
 * One maintenance pass. Expired images, abandoned inputs, result bodies past TASK_RESULT_RETENTION, old webhook
 * attempts and kept request/response bodies past their application's retention are deleted here, because TTL indexes are outside the portable subset (docs/contracts.md, collections). Every sweep deletes
 * in small batches found by index, so a pass costs the same at any database size and never holds the database long.
 */
@Injectable()
export class MaintenancePass {
  constructor(
    private readonly config: AppConfig,
    private readonly store: ImageStore,
    private readonly deliveries: WebhookDeliveriesRepository,
    private readonly tasks: TasksRepository,
    private readonly feedSweeper: FeedSweeper,
    private readonly bodies: TaskBodiesRepository,
  ) {}

  /** One maintenance pass; returns how many of each kind it deleted. `stop` ends it at the next step (shutdown). */
  async run(
    now = Date.now(),
    stop?: AbortSignal,
  ): Promise<{ images: number; inputs: number; results: number; deliveries: number; bodies: number }> {
    const deadline = now + PASS_BUDGET_MS;
    const files = await this.store.deleteExpired(
      Math.max(this.config.IMAGE_URL_TTL, this.config.IMAGE_INPUT_TTL) * 1000,
      new Date(now),
    );
    const results = await this.feedSweeper.sweep({
      name: 'task-results',
      feed: 'tasks',
      cutoff: new Date(now - this.config.TASK_RESULT_RETENTION * 1000),
      deletePage: (page) => this.tasks.deleteResults(page),
      deadline,
      stop,
    });
    const deliveries = await this.feedSweeper.sweep({
      name: 'webhook-deliveries',
      feed: 'webhooks',
      cutoff: new Date(now - DELIVERY_HISTORY_MS),
      deletePage: (page) => this.deliveries.deletePage(page),
      deadline,
      stop,
    });
    // Kept bodies by the hour they expire in; the first pass of a database looks back the longest retention.
    const bodies = await this.bodies.deleteExpired(new Date(now), BODY_RETENTION_DAYS.max * 86_400_000, deadline, stop);
    return { ...files, results: results.deleted, deliveries: deliveries.deleted, bodies };
  }
}
