import { GatewayError, LOGGER, toEnvelope } from '@gateway/common';
import { TaskBodiesRepository, TaskBody, utcHour } from '@gateway/db';
import { PayloadOf, TaskOutcome, TaskQueueName } from '@gateway/queue';
import { BeforeApplicationShutdown, Inject, Injectable } from '@nestjs/common';
import { Logger } from 'pino';
import { keptBody } from './kept-body';
import { requestOfJob } from './request-of-job';
import { WindowedBatches } from '../windowed-batches';

const DAY_MS = 86_400_000;
/** Bodies of tasks delivered within this window are written together, as RecordWriter does with records. */
const BATCH_WINDOW_MS = 250;
const MAX_BATCH = 100;

interface Delivered {
  job: PayloadOf<TaskQueueName>;
  outcome: TaskOutcome;
  finishedAt: number;
}

/**
 * Keeps the request and response bodies of tasks whose application opted in (`log_bodies`, carried on the job as
 * `bodies`). Bodies are diagnostics, not records: they are shaped and written after the answer, apart from the task
 * record, and a batch that cannot be written is logged and dropped, never retried and never in the way of the record
 * or the reply. A job rerun after a stall that had already delivered keeps no bodies.
 */
@Injectable()
export class TaskBodyKeeper implements BeforeApplicationShutdown {
  private readonly soon = new WindowedBatches<Delivered>(
    (delivered) =>
      Promise.resolve()
        .then(() => this.bodies.insertEach(delivered.map(bodyOf)))
        .catch((error: Error) =>
          this.logger.warn(
            { tasks: delivered.map(({ job }) => job.taskId), err: error.message },
            'task bodies not kept (diagnostics only; the task records are unaffected)',
          ),
        ),
    BATCH_WINDOW_MS,
    MAX_BATCH,
  );

  constructor(
    private readonly bodies: TaskBodiesRepository,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  /** Notes a delivered task of an opted-in application; its bodies are shaped and written with the next batch. */
  keepSoon(job: PayloadOf<TaskQueueName>, outcome: TaskOutcome, finishedAt: number): void {
    if (!job.bodies) return;
    this.soon.add({ job, outcome, finishedAt });
  }

  beforeApplicationShutdown(): Promise<void> {
    return this.soon.drain();
  }
}

/** What is stored for one task: both bodies shaped by keptBody, and when they go. */
export function bodyOf({ job, outcome, finishedAt }: Delivered): TaskBody {
  const expiresAt = new Date(finishedAt + (job.bodies?.retentionDays ?? 1) * DAY_MS);
  const response = outcome.ok
    ? outcome.body
    : // The error envelope the caller was answered.
      JSON.stringify(toEnvelope(GatewayError.from(outcome.error), job.requestId));
  return {
    _id: job.taskId,
    appId: job.appId,
    request: keptBody(JSON.stringify(requestOfJob(job))),
    response: keptBody(response),
    createdAt: new Date(finishedAt),
    expiresAt,
    expiresHour: utcHour(expiresAt),
  };
}
