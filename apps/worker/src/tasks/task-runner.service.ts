import { GatewayError, LOGGER, SerializedError } from '@gateway/common';
import { taskBase, TasksRepository } from '@gateway/db';
import { UsageRollups } from '@gateway/metering';
import { MetricsService } from '@gateway/metrics';
import { OutcomeStore, PayloadOf, TaskJobResult, TaskOutcome, TaskQueueName } from '@gateway/queue';
import { LimitsService } from '@gateway/tenancy';
import { WebhookJobs } from '@gateway/webhooks';
import { Inject, Injectable } from '@nestjs/common';
import { Job, UnrecoverableError } from 'bullmq';
import { Logger } from 'pino';
import { ExecutedTask } from './task-processor';

/**
 * Runs one task job: executes it, delivers the outcome (stored in Redis and published to the waiting api
 * instance in one round trip), then records the task once in MongoDB, off the caller's path, and enqueues its
 * webhook: the caller's answer never waits for, nor depends on, the application's receiver. A GatewayError is
 * the task's final answer (bad input, upstream exhausted) and is not retried; any other error is retried by
 * BullMQ and becomes the final answer on the last attempt (docs/style.md).
 */
@Injectable()
export class TaskRunner {
  constructor(
    private readonly tasks: TasksRepository,
    private readonly outcomes: OutcomeStore,
    private readonly limits: LimitsService,
    private readonly rollups: UsageRollups,
    private readonly metrics: MetricsService,
    private readonly webhookJobs: WebhookJobs,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  async run<Q extends TaskQueueName>(
    queue: Q,
    job: Job<PayloadOf<Q>>,
    execute: (payload: PayloadOf<Q>) => Promise<ExecutedTask>,
  ): Promise<TaskJobResult> {
    const data = job.data;
    const startedAt = Date.now();
    if (job.attemptsStarted <= 1) this.metrics.jobWait.observe({ queue }, (startedAt - job.timestamp) / 1000);

    let executed: ExecutedTask | undefined;
    let failure: SerializedError | undefined;
    try {
      executed = await execute(data);
    } catch (error) {
      const finalAttempt = job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
      if (!(error instanceof GatewayError) && !finalAttempt) {
        this.logger.warn({ taskId: data.taskId, attempt: job.attemptsMade + 1, err: (error as Error).message }, 'task attempt failed, will retry');
        throw error;
      }
      failure = toFailure(error, data.taskId, this.logger);
    }

    const finishedAt = Date.now();
    const timing = { cost: executed?.cost ?? 0, startedAt, finishedAt };
    const outcome: TaskOutcome = executed
      ? { ok: true, body: executed.body, usage: executed.usage, provider: executed.provider, providerMs: executed.providerMs, ...timing }
      : { ok: false, error: failure!, providerMs: Number(failure!.details?.provider_ms ?? 0), ...timing };
    // Before the answer, so a caller that sends its next request on receipt finds its slot free.
    await this.limits.settle(data.appId, data.admission, executed?.usage.total_tokens ?? 0);
    await this.outcomes.deliver(data.taskId, outcome, data.replyTo);
    const base = taskBase(data);
    await this.tasks.record({
      ...base,
      provider: executed?.provider,
      status: executed ? 'succeeded' : 'failed',
      startedAt: new Date(startedAt),
      finishedAt: new Date(finishedAt),
      providerMs: Math.round(outcome.providerMs),
      attempts: job.attemptsMade + 1,
      usage: executed ? { ...executed.usage } : undefined,
      cost: executed?.cost ?? 0,
      result: executed?.body,
      error: failure ? { status: failure.status, code: failure.code, message: failure.message, param: failure.param } : undefined,
    });
    // After the record, which the event describes; a crash before this line reruns the job, so no event is lost.
    if (data.notify) await this.webhookJobs.enqueue(data.appId, data.taskId, executed ? 'task.succeeded' : 'task.failed');
    await this.outcomes.forget(data.taskId);
    this.rollups.add(
      { appId: data.appId, model: data.resolvedModel, day: base.day },
      {
        calls: 1,
        errors: executed ? 0 : 1,
        promptTokens: executed?.usage.prompt_tokens ?? 0,
        completionTokens: executed?.usage.completion_tokens ?? 0,
        images: executed?.usage.images ?? 0,
        cost: executed?.cost ?? 0,
      },
    );

    const labels = { queue, model: data.resolvedModel, provider: executed?.provider ?? 'none', outcome: executed ? 'succeeded' : 'failed' };
    this.metrics.jobDuration.observe(labels, (finishedAt - startedAt) / 1000);
    if (executed) this.countUsage(data.resolvedModel, executed);
    if (failure) throw new UnrecoverableError(`${failure.code}: ${failure.message}`);
    return { status: 'succeeded' };
  }

  private countUsage(model: string, executed: ExecutedTask): void {
    this.metrics.tokens.inc({ model, kind: 'prompt' }, executed.usage.prompt_tokens);
    if (executed.usage.completion_tokens) this.metrics.tokens.inc({ model, kind: 'completion' }, executed.usage.completion_tokens);
    if (executed.usage.images) this.metrics.images.inc({ model }, executed.usage.images);
    if (executed.cost > 0) this.metrics.billed.inc({ model }, executed.cost);
  }
}

function toFailure(error: unknown, taskId: string, logger: Logger): SerializedError {
  if (error instanceof GatewayError) return error.toJSON();
  logger.error({ taskId, err: (error as Error).message, stack: (error as Error).stack }, 'task failed');
  return new GatewayError('InternalError', 'the task failed inside the gateway').toJSON();
}
