import { GatewayError, LOGGER, SerializedError, Tracing } from '@gateway/common';
import { MeteredRoute, UpstreamAttempt, UpstreamUsage } from '@gateway/contracts';
import { fileRecord, RecordFields, taskBase } from '@gateway/db';
import { MetricsService } from '@gateway/metrics';
import {
  BudgetCrossing,
  OutcomeDelivery,
  PayloadOf,
  TaskJobResult,
  TaskOutcome,
  TaskQueueName,
  usageFields,
} from '@gateway/queue';
import { LimitsService } from '@gateway/tenancy';
import { WebhookJobs } from '@gateway/webhooks';
import { Inject, Injectable } from '@nestjs/common';
import { Job, UnrecoverableError } from 'bullmq';
import { Logger } from 'pino';
import { Counter } from 'prom-client';
import { TaskBodyKeeper } from './bodies/task-body-keeper.service';
import { TaskRecorder } from './task-recorder.service';
import { ExecutedTask, TaskService } from './task-service';
import { inStage, outsideTrace, TaskSpans } from './task-spans';
import { meteredRoutes, withoutReports } from './upstream-metering';

/** The record backlog leaves a delivered task to its own worker this long before writing the record itself. */
const RECORD_GRACE_MS = 30_000;

/**
 * Runs one task job once JobPickup has it: executes it with its task service, settles the limits, then delivers the
 * outcome (OutcomeDelivery: stored, filed for recording, usage counted and the waiting api instance answered, in one
 * Redis script marked on the job), then writes the MongoDB record and its webhook job (TaskRecorder), off the
 * caller's path. A rerun of a job that already delivered does not run the task again: it only finishes the record
 * (docs/decisions/exact-usage.md). A GatewayError is the task's final answer (bad input, upstream exhausted) and is
 * not retried; any other error is retried by BullMQ and becomes the final answer on the last attempt (docs/style.md).
 */
@Injectable()
export class TaskRunner {
  constructor(
    private readonly delivery: OutcomeDelivery,
    private readonly recorder: TaskRecorder,
    private readonly limits: LimitsService,
    private readonly webhookJobs: WebhookJobs,
    private readonly metrics: MetricsService,
    @Inject(LOGGER) private readonly logger: Logger,
    private readonly bodies: TaskBodyKeeper,
    private readonly tracing: Tracing,
  ) {}

  /** Runs a job with its queue's task service, which frees what the job kept for reruns once it is final. */
  async runTask<Q extends TaskQueueName>(
    queue: Q,
    job: Job<PayloadOf<Q>>,
    service: TaskService<Q>,
  ): Promise<TaskJobResult> {
    let final = true;
    const spans = TaskSpans.begin(this.tracing, queue, job, Date.now());
    try {
      return await (spans ? spans.run(() => this.run(queue, job, service, spans)) : this.run(queue, job, service));
    } catch (error) {
      // A retryable failure runs again and needs what the job kept; a final one (UnrecoverableError, last attempt) does not.
      final = error instanceof UnrecoverableError || isLastAttempt(job);
      throw error;
    } finally {
      if (final) await service.cleanUp?.(job.data);
    }
  }

  private async run<Q extends TaskQueueName>(
    queue: Q,
    job: Job<PayloadOf<Q>>,
    service: TaskService<Q>,
    spans?: TaskSpans,
  ): Promise<TaskJobResult> {
    const data = job.data;
    const jobKey = `${job.queueQualifiedName}:${job.id}`;
    if (job.attemptsStarted > 1 && (await this.delivery.wasDelivered(jobKey))) return this.finishDelivered(data.taskId);
    const startedAt = Date.now();
    if (job.attemptsStarted <= 1) this.metrics.jobWait.observe({ queue }, (startedAt - job.timestamp) / 1000);

    // The task's answer, or the failure that is its final answer.
    let settled: { executed: ExecutedTask; failure?: undefined } | { executed?: undefined; failure: SerializedError };
    const upstreamCalls: UpstreamAttempt[] = [];
    try {
      settled = { executed: await inStage(spans, 'task.execute', () => service.execute(data, upstreamCalls)) };
    } catch (error) {
      if (!(error instanceof GatewayError) && !isLastAttempt(job)) {
        this.logger.warn(
          { taskId: data.taskId, attempt: job.attemptsMade + 1, err: (error as Error).message },
          'task attempt failed, will retry',
        );
        throw error;
      }
      settled = { failure: toFailure(error, data.taskId, this.logger) };
    }
    const { executed, failure } = settled;

    const finishedAt = Date.now();
    const costNanos = executed?.costNanos ?? 0;
    const timing = { costNanos, startedAt, finishedAt };
    const outcome: TaskOutcome = failure
      ? { ok: false, error: failure, providerMs: Number(failure.details?.provider_ms ?? 0), ...timing }
      : {
          ok: true,
          body: executed.body,
          usage: executed.usage,
          provider: executed.provider,
          ...(executed.route ? { route: executed.route } : {}),
          providerMs: executed.providerMs,
          ...timing,
        };
    const metered = meteredRoutes(executed, upstreamCalls);
    const record: RecordFields = {
      ...taskBase(data),
      provider: executed?.provider,
      route: executed?.route,
      status: executed ? 'succeeded' : 'failed',
      startedAt: new Date(startedAt),
      finishedAt: new Date(finishedAt),
      providerMs: Math.round(outcome.providerMs),
      attempts: job.attemptsMade + 1,
      usage: executed ? { ...executed.usage } : undefined,
      costNanos,
      error: failure
        ? { status: failure.status, code: failure.code, message: failure.message, param: failure.param }
        : undefined,
      upstream: upstreamCalls.length > 0 ? withoutReports(upstreamCalls) : undefined,
      metered: metered.length > 0 ? metered : undefined,
    };
    const filed = fileRecord(record, data.notify === true, executed?.conversation, spans?.traceparent);
    // Before the answer, so a caller that sends its next request on receipt finds its slot free.
    const budgetCrossings = await inStage(spans, 'task.settle_limits', () =>
      this.limits.settle(data.appId, data.admission, executed?.usage.total_tokens ?? 0, costNanos),
    );
    // The outcome stored in Redis and published to the waiting api instance.
    const delivered = await inStage(spans, 'task.deliver_outcome', () =>
      this.delivery.deliver({
        taskId: data.taskId,
        jobKey,
        outcome,
        replyTo: data.replyTo,
        record: filed,
        recordDueAt: finishedAt + RECORD_GRACE_MS,
        usage: usageFields(
          { appId: data.appId, model: data.resolvedModel, day: record.day },
          {
            calls: 1,
            errors: executed ? 0 : 1,
            promptTokens: executed?.usage.prompt_tokens ?? 0,
            completionTokens: executed?.usage.completion_tokens ?? 0,
            images: executed?.usage.images ?? 0,
            costNanos,
          },
          // From admission (the job's creation) to the answer: what a caller waits, less the api's own handling.
          finishedAt - job.timestamp,
        ),
      }),
    );
    if (!delivered) return this.finishDelivered(data.taskId);
    // Batched with other tasks' writes: outside this task's trace, which the batch's timer would otherwise keep.
    outsideTrace(spans, () => {
      this.recorder.writeSoon({ taskId: data.taskId, record: filed, outcome });
      if (data.bodies) this.bodies.keepSoon(data, outcome, finishedAt);
    });
    if (data.notify) await this.announceBudgets(data.appId, data.taskId, budgetCrossings);

    const labels = {
      queue,
      model: data.resolvedModel,
      provider: executed?.provider ?? 'none',
      outcome: executed ? 'succeeded' : 'failed',
    };
    this.metrics.jobDuration.observe(labels, (finishedAt - startedAt) / 1000);
    if (executed) this.countUsage(data.resolvedModel, data.appId, executed);
    this.countMetered(data.resolvedModel, metered, upstreamCalls);
    if (failure) throw new UnrecoverableError(`${failure.code}: ${failure.message}`);
    return { status: 'succeeded' };
  }

  /** Budget events, after the answer: settlement marked each threshold once per period, so they are sent once. */
  private async announceBudgets(appId: string, taskId: string, crossings: BudgetCrossing[]): Promise<void> {
    for (const crossing of crossings) {
      try {
        await this.webhookJobs.enqueueBudget(appId, taskId, crossing);
      } catch (error) {
        this.logger.warn({ appId, taskId, crossing, err: (error as Error).message }, 'could not enqueue budget event');
      }
    }
  }

  /** An earlier run delivered this task (and then stalled): what it left is its record, and the job's ending. */
  private async finishDelivered(taskId: string): Promise<TaskJobResult> {
    const outcome = await this.recorder.writePending(taskId);
    if (outcome && !outcome.ok) throw new UnrecoverableError(`${outcome.error.code}: ${outcome.error.message}`);
    return { status: 'succeeded' };
  }

  private countUsage(model: string, appId: string, executed: ExecutedTask): void {
    this.metrics.tokens.inc({ model, kind: 'prompt' }, executed.usage.prompt_tokens);
    if (executed.usage.completion_tokens)
      this.metrics.tokens.inc({ model, kind: 'completion' }, executed.usage.completion_tokens);
    if (executed.usage.images) this.metrics.images.inc({ model }, executed.usage.images);
    if (executed.costNanos > 0) {
      this.metrics.billed.inc({ model }, executed.costNanos / 1e9);
      this.metrics.appBilled.inc(appId, executed.costNanos / 1e9);
    }
  }

  /** The computed/reported counter pair an alert compares (docs/operations.md, "Upstream reconciliation"). */
  private countMetered(model: string, metered: MeteredRoute[], calls: UpstreamAttempt[]): void {
    for (const { route, computed, reported } of metered) {
      countFigures(this.metrics.upstreamComputed, model, route, computed);
      if (reported) countFigures(this.metrics.upstreamReported, model, route, reported);
    }
    for (const { route, outcome } of calls) if (outcome === 'spent') this.metrics.upstreamSpent.inc({ model, route });
  }
}

/** One side's figures on its counter, by kind; a figure the side does not have is not counted. */
function countFigures(counter: Counter<string>, model: string, route: string, figures: UpstreamUsage): void {
  if (figures.promptTokens !== undefined || figures.completionTokens !== undefined)
    counter.inc({ model, route, kind: 'tokens' }, (figures.promptTokens ?? 0) + (figures.completionTokens ?? 0));
  if (figures.images !== undefined) counter.inc({ model, route, kind: 'images' }, figures.images);
  if (figures.costNanos !== undefined) counter.inc({ model, route, kind: 'cost' }, figures.costNanos / 1e9);
}

function isLastAttempt(job: Job): boolean {
  return job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
}

function toFailure(error: unknown, taskId: string, logger: Logger): SerializedError {
  if (error instanceof GatewayError) return error.toJSON();
  logger.error({ taskId, err: (error as Error).message, stack: (error as Error).stack }, 'task failed');
  return new GatewayError('InternalError', 'the task failed inside the gateway').toJSON();
}
