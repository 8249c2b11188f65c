import { AppConfig, ERROR_CODES, ErrorCode, GatewayError, nanosToNumber } from '@gateway/common';
import { readFiledRecord, TaskRecord, TasksRepository } from '@gateway/db';
import { DeliveredTasks } from '@gateway/ledger';
import { JobDispatcher } from '@gateway/queue';
import { Injectable } from '@nestjs/common';

const TASK_ID = /^task_[0-9A-Za-z]{22}$/;

/**
 * GET /v1/tasks/{id}: the record once final, the job's state while queued or running; owner only. A result older
 * than TASK_RESULT_RETENTION reads as `result: null, result_expired: true`, whether or not the sweep has run yet.
 */
@Injectable()
export class TaskReader {
  private readonly retentionMs: number;

  constructor(
    config: AppConfig,
    private readonly tasks: TasksRepository,
    private readonly dispatcher: JobDispatcher,
    private readonly delivered: DeliveredTasks,
  ) {
    this.retentionMs = config.TASK_RESULT_RETENTION * 1000;
  }

  async read(taskId: string, appId: string): Promise<Record<string, unknown>> {
    if (!TASK_ID.test(taskId)) throw notFound(taskId);
    // A delivered task is filed in Redis until its record is written, then it is in MongoDB: reading in that order
    // (and Redis again when neither has it yet) always finds a finished task, even while MongoDB is away.
    const filed = await this.readFiled(taskId, appId);
    if (filed) return filed;
    const record = await this.tasks.findForApp(taskId, appId);
    if (record) {
      // After the record, never alongside it: the worker stores the body first, so a record read means its body is there.
      const body =
        record.status === 'succeeded' && !this.pastRetention(record) ? await this.tasks.findResult(taskId) : null;
      const expired = record.status === 'succeeded' && body === null;
      return present(record, body, expired);
    }
    const job = await this.dispatcher.jobState(taskId);
    const deliveredMeanwhile = await this.readFiled(taskId, appId);
    if (deliveredMeanwhile) return deliveredMeanwhile;
    if (!job || job.data.appId !== appId) throw notFound(taskId);
    const view = {
      id: taskId,
      object: 'task',
      status: job.state === 'active' ? 'running' : 'queued',
      endpoint: job.data.endpoint,
      model: job.data.model,
      resolved_model: job.data.resolvedModel,
      created_at: Math.floor(job.data.createdAt / 1000),
    };
    // Failed without an outcome: its worker died more often than BullMQ allows (stalled).
    if (job.state === 'failed')
      return {
        ...view,
        status: 'failed',
        result: null,
        error: errorView({ code: 'InternalError', message: 'the task was interrupted too many times' }),
      };
    return view;
  }

  /** A delivered task whose record is not written yet, as the record will show it; another application's: absent. */
  private async readFiled(taskId: string, appId: string): Promise<Record<string, unknown> | null> {
    const delivered = await this.delivered.find(taskId);
    if (!delivered) return null;
    const { record } = readFiledRecord(delivered.record);
    if (record.appId !== appId) throw notFound(taskId);
    return present(record, delivered.outcome?.ok ? delivered.outcome.body : null, false);
  }

  private pastRetention(record: TaskRecord): boolean {
    return Date.now() - new Date(record.finishedAt ?? record.createdAt).getTime() > this.retentionMs;
  }
}

/** Unix seconds of a Date or epoch-ms time, null when absent. */
function seconds(time?: Date | number | null): number | null {
  return time == null ? null : Math.floor(new Date(time).getTime() / 1000);
}

function present(record: TaskRecord, body: string | null, resultExpired: boolean): Record<string, unknown> {
  return {
    id: record._id,
    object: 'task',
    status: record.status,
    endpoint: record.endpoint,
    model: record.model,
    resolved_model: record.resolvedModel,
    route: record.route ?? null,
    created_at: seconds(record.createdAt),
    started_at: seconds(record.startedAt),
    finished_at: seconds(record.finishedAt),
    usage: record.usage ?? null,
    cost: nanosToNumber(record.costNanos),
    result: body ? JSON.parse(body) : null,
    result_expired: resultExpired,
    error: record.error ? errorView(record.error) : null,
  };
}

/** The `error` object of the envelope the synchronous call answered (docs/contracts.md), with its HTTP status. */
function errorView(error: { code: string; message: string; param?: string; status?: number }) {
  const known = ERROR_CODES[error.code as ErrorCode];
  return {
    code: error.code,
    message: error.message,
    param: error.param ?? null,
    type: known?.type ?? 'api_error',
    status: error.status ?? known?.status ?? 500,
  };
}

function notFound(taskId: string): GatewayError {
  return new GatewayError('NotFound', `no task ${taskId} for this application`, { param: 'id' });
}
