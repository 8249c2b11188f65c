import { LOGGER } from '@gateway/common';
import { readFiledRecord, TasksRepository } from '@gateway/db';
import { PendingRecord, PendingRecords, TaskOutcome } from '@gateway/queue';
import { WebhookJobs } from '@gateway/webhooks';
import { Inject, Injectable } from '@nestjs/common';
import { Logger } from 'pino';

/**
 * After a failed write the worker leaves new records to the backlog this long: each write to an absent database
 * waits out the driver's server selection (seconds), and the job would hold its slot meanwhile.
 */
const BACK_OFF_MS = 5_000;

/**
 * Writes a delivered task's MongoDB record, then its webhook job (the event describes the record), then takes it
 * out of the backlog (PendingRecords). Every step is idempotent per task id, so a write repeated after a crash or by
 * the backlog records and notifies once.
 */
@Injectable()
export class TaskRecorder {
  private backOffUntil = 0;

  constructor(
    private readonly tasks: TasksRepository,
    private readonly pending: PendingRecords,
    private readonly webhookJobs: WebhookJobs,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  /** Writes a pending record. */
  async write({ taskId, record: filed, outcome }: PendingRecord): Promise<void> {
    const { record, notify } = readFiledRecord(filed);
    await this.tasks.record({ ...record, result: outcome?.ok ? outcome.body : undefined });
    if (notify)
      await this.webhookJobs.enqueue(
        record.appId,
        taskId,
        record.status === 'succeeded' ? 'task.succeeded' : 'task.failed',
      );
    await this.pending.settle(taskId);
  }

  /**
   * The delivering worker's own attempt, right after the delivery. A failure (MongoDB away) is not the task's: the
   * record backlog writes it once MongoDB is back, as it does every record while writes back off.
   */
  async writeNow(taskId: string, filed: string, outcome: TaskOutcome): Promise<void> {
    if (Date.now() < this.backOffUntil) return;
    try {
      await this.write({ taskId, record: filed, outcome });
    } catch (error) {
      this.backOffUntil = Date.now() + BACK_OFF_MS;
      this.logger.warn({ taskId, err: (error as Error).message }, 'task record deferred to the record backlog');
    }
  }

  /** After a rerun found its job already delivered: writes the record if it is still pending; the outcome, if kept. */
  async writePending(taskId: string): Promise<TaskOutcome | null> {
    const entry = await this.pending.find(taskId);
    if (entry) await this.write(entry);
    return entry?.outcome ?? null;
  }
}
