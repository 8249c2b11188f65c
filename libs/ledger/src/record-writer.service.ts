import { AppConfig, contextOf, LOGGER, randomBase62, Tracing } from '@gateway/common';
import { BillingRecordsRepository, FiledRecord, readFiledRecord, TasksRepository } from '@gateway/db';
import { closeRedis, createRedis } from '@gateway/redis';
import { WebhookJobs } from '@gateway/webhooks';
import { BeforeApplicationShutdown, Inject, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { Link, Span, SpanStatusCode, trace } from '@opentelemetry/api';
import Redis from 'ioredis';
import { hostname } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { Logger } from 'pino';
import { DeliveredTask, DeliveredTasks, StreamedTask } from './delivered-tasks';

/** Records written per batch at most. */
const MAX_BATCH = 200;
/**
 * After a batch smaller than MAX_BATCH, the writer waits this long for others to share the next write. A record
 * written alone costs the worker, FerretDB and PostgreSQL about as much CPU as a batch of dozens, and on a small
 * machine that CPU is taken from the callers of the moment (bench/README.md, "Stages"). Until the write, the filed
 * record in Redis answers GET /v1/tasks.
 */
const BATCH_WINDOW_MS = 250;
/** How long one read waits for the first new entry; shutdown ends the wait at once. */
const BLOCK_MS = 5_000;
/** An entry taken and not settled this long (its writer died, or MongoDB hung) is taken over by another writer. */
const CLAIM_IDLE_MS = 30_000;
/** How often a writer looks for such entries, and for ended writers to forget. */
const RECLAIM_EVERY_MS = 5_000;
/** Batches a stopping writer still takes and writes once, so what its worker delivered last is recorded. */
const BATCHES_AT_SHUTDOWN = 5;
/** A writer that has read nothing for a day, holding nothing, belongs to a process that ended. */
const WRITER_FORGOTTEN_AFTER_MS = 24 * 3_600_000;
/** Waits between attempts at a batch MongoDB refused: doubling from the first to the last. */
const RETRY_FIRST_MS = 500;
const RETRY_MAX_MS = 5_000;

/**
 * Writes delivered tasks' bills (an image edit's billing records) and MongoDB records, then their webhook jobs (the
 * event describes the record), then settles them on the record stream (DeliveredTasks). Every worker runs one writer in the stream's consumer group, so any
 * worker writes any task's record, in batches, off the jobs' path. A batch MongoDB refuses is retried until it is
 * written, however long MongoDB is away; a batch whose writer dies is claimed by another writer. Every step is
 * idempotent per task id, so a record written twice (a claim after a slow write) is recorded and notified once.
 */
@Injectable()
export class RecordWriter implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly consumer = `${hostname()}-${process.pid}-${randomBase62(6)}`;
  private readonly stop = new AbortController();
  private running?: Promise<void>;
  private closeReader?: () => Promise<void>;
  private nextReclaim = 0;
  private failing = false;

  constructor(
    private readonly config: AppConfig,
    private readonly delivered: DeliveredTasks,
    private readonly tasks: TasksRepository,
    private readonly billing: BillingRecordsRepository,
    private readonly webhookJobs: WebhookJobs,
    @Inject(LOGGER) private readonly logger: Logger,
    private readonly tracing: Tracing,
  ) {}

  onApplicationBootstrap(): void {
    // The read blocks its connection, so it has one of its own; it waits for Redis however long Redis is away.
    const reader = createRedis(this.config, { maxRetriesPerRequest: null }, 'record-writer', this.logger);
    this.closeReader = () => closeRedis(reader, 0);
    this.running = this.run(reader);
  }

  /**
   * Jobs have stopped (JobPickup closes first): the batch in hand is finished, and what is left on the stream is
   * written once more before connections close; a record that still fails waits for another writer.
   */
  async beforeApplicationShutdown(): Promise<void> {
    this.stop.abort();
    await this.closeReader?.();
    await this.running;
    for (let batch = 0; batch < BATCHES_AT_SHUTDOWN; batch++) {
      const tasks = await this.delivered.readNew(this.consumer, MAX_BATCH).catch(() => []);
      if (tasks.length === 0) return;
      try {
        await this.write(tasks);
      } catch (error) {
        this.logger.warn({ tasks: tasks.length, err: (error as Error).message }, 'task records left to other writers');
        return;
      }
    }
  }

  /** Writes the records of `tasks` and settles them; rejects, leaving them on the stream, if any step fails. */
  async write(tasks: StreamedTask[]): Promise<void> {
    const loaded = await this.delivered.load(tasks);
    await this.record(loaded);
    await this.delivered.settle(tasks);
  }

  private async run(reader: Redis): Promise<void> {
    await this.delivered.ensureGroup().catch(() => undefined);
    while (!this.stop.signal.aborted) {
      try {
        const tasks = await this.next(reader);
        if (tasks.length > 0) await this.writeUntilWritten(tasks);
        if (tasks.length < MAX_BATCH) await sleep(BATCH_WINDOW_MS, undefined, { signal: this.stop.signal });
      } catch (error) {
        if (this.stop.signal.aborted) break;
        this.logger.warn({ err: (error as Error).message }, 'record writer could not read the record stream');
        await sleep(RETRY_MAX_MS, undefined, { signal: this.stop.signal }).catch(() => undefined);
      }
    }
  }

  /** Entries of ended writers (and of the version before the stream) first, now and then; else new ones. */
  private async next(reader: Redis): Promise<StreamedTask[]> {
    if (Date.now() >= this.nextReclaim) {
      this.nextReclaim = Date.now() + RECLAIM_EVERY_MS;
      const moved = await this.delivered.moveLegacyBacklog();
      if (moved > 0) this.logger.info({ moved }, 'records filed by the previous version moved to the record stream');
      const claimed = await this.delivered.reclaim(this.consumer, CLAIM_IDLE_MS, MAX_BATCH);
      if (claimed.length > 0) return claimed;
      await this.delivered.forgetIdleWriters(WRITER_FORGOTTEN_AFTER_MS);
    }
    return this.delivered.readNew(this.consumer, MAX_BATCH, { reader, blockMs: BLOCK_MS });
  }

  /** Retries a batch until it is written; on shutdown, it stays on the stream for another writer. */
  private async writeUntilWritten(tasks: StreamedTask[]): Promise<void> {
    for (let wait = RETRY_FIRST_MS; ; wait = Math.min(2 * wait, RETRY_MAX_MS)) {
      try {
        await this.write(tasks);
        if (this.failing) this.logger.info({ tasks: tasks.length }, 'task records written again');
        this.failing = false;
        return;
      } catch (error) {
        // Once per outage: the stream keeps every record until MongoDB is back.
        if (!this.failing)
          this.logger.warn({ tasks: tasks.length, err: (error as Error).message }, 'task records wait');
        this.failing = true;
        if (this.stop.signal.aborted) return;
        await sleep(wait, undefined, { signal: this.stop.signal }).catch(() => undefined);
        if (this.stop.signal.aborted) return;
      }
    }
  }

  private async record(tasks: DeliveredTask[]): Promise<void> {
    if (tasks.length === 0) return;
    const filed = tasks.map((task) => ({ ...readFiledRecord(task.record), task }));
    const span = recordBatchSpan(
      this.tracing,
      filed.map(({ traceparent }) => traceparent),
    );
    try {
      // Bills first: a record that can be read has its bills.
      await Promise.all(filed.map((entry) => this.bill(entry)));
      await this.tasks.recordEach(
        filed.map(({ record, conversation, task }) =>
          task.outcome?.ok ? { ...record, result: task.outcome.body, conversation } : record,
        ),
      );
    } catch (error) {
      span?.setStatus({ code: SpanStatusCode.ERROR, message: (error as Error).message });
      throw error;
    } finally {
      span?.end();
    }
    for (const { record, notify, task, traceparent } of filed) {
      if (!notify) continue;
      const event = record.status === 'succeeded' ? 'task.succeeded' : 'task.failed';
      await this.webhookJobs.enqueue(record.appId, task.taskId, event, traceparent);
    }
  }

  /** An image edit's delivered images, one billing record each (`<task id>:<index>`, once however often written). */
  private async bill({ record, bills }: FiledRecord): Promise<void> {
    if (!bills) return;
    await this.billing.billImages(
      bills.map(({ index, unitPriceNanos, currency }) => ({
        taskId: record._id,
        index,
        appId: record.appId,
        model: record.resolvedModel,
        unitPriceNanos,
        currency,
        day: record.day,
        createdAt: record.finishedAt ?? new Date(),
      })),
    );
  }
}

/**
 * A batch of task records written together: one span linked to each traced task's span, since a span has one parent
 * and the batch serves many traces. Undefined when none of them is traced.
 */
export function recordBatchSpan(tracing: Tracing, traceparents: (string | undefined)[]): Span | undefined {
  if (!tracing.enabled) return undefined;
  const links: Link[] = [];
  for (const traceparent of traceparents) {
    const linked = traceparent ? trace.getSpanContext(contextOf(traceparent)) : undefined;
    if (linked) links.push({ context: linked });
  }
  if (links.length === 0) return undefined;
  return tracing.start('task.record', { links, attributes: { 'gateway.tasks': traceparents.length } }, undefined).span;
}
