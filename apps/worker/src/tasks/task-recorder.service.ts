import { LOGGER, Tracing } from '@gateway/common';
import { readFiledRecord, TasksRepository } from '@gateway/db';
import { PendingRecord, PendingRecords } from '@gateway/queue';
import { WebhookJobs } from '@gateway/webhooks';
import { BeforeApplicationShutdown, Inject, Injectable } from '@nestjs/common';
import { SpanStatusCode } from '@opentelemetry/api';
import { Logger } from 'pino';
import { recordBatchSpan } from './task-spans';
import { WindowedBatches } from './windowed-batches';

/**
 * After a failed write the worker leaves new records to the backlog this long: each write to an absent database
 * waits out the driver's server selection (seconds), and a batch would keep piling up meanwhile.
 */
const BACK_OFF_MS = 5_000;
/**
 * Delivered tasks wait this long for others to share their write. A record written alone costs the worker, FerretDB
 * and PostgreSQL about as much CPU as a batch of dozens, and on a small machine that CPU is taken from the callers
 * of the moment (bench/README.md, "Stages"). Until the write, the filed record in Redis answers GET /v1/tasks.
 */
const BATCH_WINDOW_MS = 250;
/** A batch this large is written at once. */
const MAX_BATCH = 200;

/**
 * Writes delivered tasks' MongoDB records, then their webhook jobs (the event describes the record), then takes them
 * out of the backlog (PendingRecords). Every step is idempotent per task id, so a write repeated after a crash or by
 * the backlog records and notifies once. Records of tasks this worker just delivered are written together, off the
 * job's path: until then the filed record in Redis answers GET /v1/tasks, and the backlog writes whatever a batch
 * could not.
 */
@Injectable()
export class TaskRecorder implements BeforeApplicationShutdown {
  private backOffUntil = 0;
  private readonly soon = new WindowedBatches<PendingRecord>(
    (entries) =>
      this.write(entries).catch((error: Error) => {
        this.backOffUntil = Date.now() + BACK_OFF_MS;
        this.logger.warn({ tasks: entries.length, err: error.message }, 'task records deferred to the record backlog');
      }),
    BATCH_WINDOW_MS,
    MAX_BATCH,
  );

  constructor(
    private readonly tasks: TasksRepository,
    private readonly pending: PendingRecords,
    private readonly webhookJobs: WebhookJobs,
    @Inject(LOGGER) private readonly logger: Logger,
    private readonly tracing: Tracing,
  ) {}

  /** Writes pending records; rejects if any step fails, leaving them all pending. */
  async write(entries: PendingRecord[]): Promise<void> {
    if (entries.length === 0) return;
    const filed = entries.map((entry) => ({ ...readFiledRecord(entry.record), entry }));
    const span = recordBatchSpan(
      this.tracing,
      filed.map(({ traceparent }) => traceparent),
    );
    try {
      await this.tasks.recordEach(
        filed.map(({ record, conversation, entry }) =>
          entry.outcome?.ok ? { ...record, result: entry.outcome.body, conversation } : record,
        ),
      );
    } catch (error) {
      span?.setStatus({ code: SpanStatusCode.ERROR, message: (error as Error).message });
      throw error;
    } finally {
      span?.end();
    }
    for (const { record, notify, entry, traceparent } of filed) {
      if (!notify) continue;
      const event = record.status === 'succeeded' ? 'task.succeeded' : 'task.failed';
      await this.webhookJobs.enqueue(record.appId, entry.taskId, event, traceparent);
    }
    await this.pending.settleEach(entries.map(({ taskId }) => taskId));
  }

  /**
   * The delivering worker's own write, batched with the records it delivers in the next BATCH_WINDOW_MS. A failure
   * (MongoDB away) is not the tasks': the record backlog writes them once MongoDB is back, as it does every record
   * while writes back off.
   */
  writeSoon(entry: PendingRecord): void {
    if (Date.now() < this.backOffUntil) return;
    this.soon.add(entry);
  }

  /** After a rerun found its job already delivered: writes the record if it is still pending; the outcome, if kept. */
  async writePending(taskId: string): Promise<PendingRecord['outcome']> {
    const entry = await this.pending.find(taskId);
    if (entry) await this.write([entry]);
    return entry?.outcome ?? null;
  }

  /** Jobs have stopped (JobPickup closes first): what they delivered is written before connections close. */
  beforeApplicationShutdown(): Promise<void> {
    return this.soon.drain();
  }
}
