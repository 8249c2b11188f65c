import { GatewayError, LOGGER, SerializedError, Tracing } from '@gateway/common';
import { MeteredRoute, UpstreamAttempt, UpstreamUsage } from '@gateway/contracts';
import { fileRecord } from '@gateway/db';
import { OutcomeDelivery } from '@gateway/ledger';
import { MetricsService } from '@gateway/metrics';
import { BudgetCrossing, PayloadOf, TaskJobResult, TaskQueueName } from '@gateway/queue';
import { LimitsService } from '@gateway/tenancy';
import { WebhookJobs } from '@gateway/webhooks';
import { Inject, Injectable } from '@nestjs/common';
import { Job, UnrecoverableError } from 'bullmq';
import { Logger } from 'pino';
import { Counter } from 'prom-client';
import { TaskBodyKeeper } from './bodies/task-body-keeper.service';
import { outcomeOf, recordOf, RunTimes, TaskEnd, usageOf } from './task-ending';
import { ExecutedTask, TaskService } from './task-service';
import { inStage, outsideTrace, TaskSpans } from './task-spans';

/**
 * Runs one task job once JobPickup has it: executes it with its task service, makes its outcome, record and usage
 * (task-ending.ts), settles the limits, then delivers (OutcomeDelivery: the outcome stored, the record filed on the
 * record stream, the usage counted and the waiting api instance answered, in one Redis script marked on the job).
 * The record writers (RecordWriter, @gateway/ledger) write the MongoDB record and its webhook job, off the caller's
 * path. A rerun of a job that already delivered does not run the task again (docs/decisions/exact-usage.md). A
 * GatewayError is the task's final answer (bad input, upstream exhausted) and is
 * not retried; any other error is retried by BullMQ and becomes the final answer on the last attempt (docs/style.md).
 */
@Injectable()
export class TaskRunner {
  constructor(
    private readonly delivery: OutcomeDelivery,
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
    if (job.attemptsStarted > 1 && (await this.delivery.wasDelivered(jobKey))) return this.endDelivered(data.taskId);
    const startedAt = Date.now();
    if (job.attemptsStarted <= 1) this.metrics.jobWait.observe({ queue }, (startedAt - job.timestamp) / 1000);

    const upstreamCalls: UpstreamAttempt[] = [];
    const end = await this.execute(job, service, upstreamCalls, spans);
    const times = { startedAt, finishedAt: Date.now() };
    const outcome = outcomeOf(end, times);
    const record = recordOf(job, end, times, upstreamCalls);
    // Before the answer, so a caller that sends its next request on receipt finds its slot free.
    const budgetCrossings = await inStage(spans, 'task.settle_limits', () =>
      this.limits.settle(data.appId, data.admission, end.executed?.usage.total_tokens ?? 0, record.costNanos ?? 0),
    );
    // Stored, filed for its record, counted and published to the waiting api instance, in one script.
    const delivered = await inStage(spans, 'task.deliver_outcome', () =>
      this.delivery.deliver({
        taskId: data.taskId,
        jobKey,
        outcome,
        replyTo: data.replyTo,
        record: fileRecord(record, data.notify === true, {
          conversation: end.executed?.conversation,
          traceparent: spans?.traceparent,
          bills: end.executed?.billedImages?.map(({ index, unitPriceNanos, currency }) => ({
            index,
            unitPriceNanos,
            currency,
          })),
        }),
        day: record.day,
        usage: usageOf(job, end, record, times.finishedAt),
      }),
    );
    if (!delivered) return this.endDelivered(data.taskId);
    // Batched with other tasks' writes: outside this task's trace, which the batch's timer would otherwise keep.
    if (data.bodies) outsideTrace(spans, () => this.bodies.keepSoon(data, outcome, times.finishedAt));
    if (data.notify) await this.announceBudgets(data.appId, data.taskId, budgetCrossings);
    this.observe(queue, data.resolvedModel, data.appId, end, times, { metered: record.metered ?? [], upstreamCalls });
    if (end.failure) throw new UnrecoverableError(`${end.failure.code}: ${end.failure.message}`);
    return { status: 'succeeded' };
  }

  /**
   * Runs the task with its service. A GatewayError, or any error on the last attempt, is its final answer; any other
   * error is thrown for BullMQ to retry, having touched nothing.
   */
  private async execute<Q extends TaskQueueName>(
    job: Job<PayloadOf<Q>>,
    service: TaskService<Q>,
    upstreamCalls: UpstreamAttempt[],
    spans?: TaskSpans,
  ): Promise<TaskEnd> {
    try {
      return { executed: await inStage(spans, 'task.execute', () => service.execute(job.data, upstreamCalls)) };
    } catch (error) {
      if (!(error instanceof GatewayError) && !isLastAttempt(job)) {
        this.logger.warn(
          { taskId: job.data.taskId, attempt: job.attemptsMade + 1, err: (error as Error).message },
          'task attempt failed, will retry',
        );
        throw error;
      }
      return { failure: toFailure(error, job.data.taskId, this.logger) };
    }
  }

  /** The task's figures on the worker's metrics, once its outcome is delivered. */
  private observe(
    queue: TaskQueueName,
    model: string,
    appId: string,
    { executed }: TaskEnd,
    { startedAt, finishedAt }: RunTimes,
    { metered, upstreamCalls }: { metered: MeteredRoute[]; upstreamCalls: UpstreamAttempt[] },
  ): void {
    const labels = {
      queue,
      model,
      provider: executed?.provider ?? 'none',
      outcome: executed ? 'succeeded' : 'failed',
    };
    this.metrics.jobDuration.observe(labels, (finishedAt - startedAt) / 1000);
    if (executed) this.countUsage(model, appId, executed);
    // The record's metered routes: computed once, with the record.
    this.countMetered(model, metered, upstreamCalls);
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

  /**
   * An earlier run delivered this task (and then stalled): the record writers write its record; the job ends as the
   * delivered outcome did (an outcome already recorded was delivered, and its job ended, long ago).
   */
  private async endDelivered(taskId: string): Promise<TaskJobResult> {
    const outcome = await this.delivery.read(taskId);
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
