import { GatewayError, LOGGER, SerializedError } from '@gateway/common';
import { taskBase, TasksRepository } from '@gateway/db';
import { UsageRollups } from '@gateway/metering';
import { MetricsService } from '@gateway/metrics';
import { OutcomeDelivery, PayloadOf, TaskJobResult, TaskOutcome, TaskQueueName } from '@gateway/queue';
import { LimitsService } from '@gateway/tenancy';
import { WebhookJobs } from '@gateway/webhooks';
import { Inject, Injectable } from '@nestjs/common';
import { Job, UnrecoverableError } from 'bullmq';
import { Logger } from 'pino';
import { ExecutedTask, TaskService } from './task-service';

/**
 * Runs one task job once JobPickup has it: executes it with its task service, settles the limits, delivers the
 * outcome (OutcomeDelivery: stored in Redis and published to the waiting api instance in one round trip), then
 * records the task once in MongoDB, off the caller's path, and enqueues its webhook: the caller's answer never
 * waits for, nor depends on, the application's receiver. A GatewayError is the task's final answer (bad input,
 * upstream exhausted) and is not retried; any other error is retried by BullMQ and becomes the final answer on
 * the last attempt (docs/style.md).
 */
@Injectable()
export class TaskRunner {
  constructor(
    private readonly tasks: TasksRepository,
    private readonly delivery: OutcomeDelivery,
    private readonly limits: LimitsService,
    private readonly rollups: UsageRollups,
    private readonly metrics: MetricsService,
    private readonly webhookJobs: WebhookJobs,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  /** Runs a job with its queue's task service, which frees what the job kept for reruns once it is final. */
  async runTask<Q extends TaskQueueName>(
    queue: Q,
    job: Job<PayloadOf<Q>>,
    service: TaskService<Q>,
  ): Promise<TaskJobResult> {
    let final = true;
    try {
      return await this.run(queue, job, service);
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
  ): Promise<TaskJobResult> {
    const data = job.data;
    const startedAt = Date.now();
    if (job.attemptsStarted <= 1) this.metrics.jobWait.observe({ queue }, (startedAt - job.timestamp) / 1000);

    // The task's answer, or the failure that is its final answer.
    let settled: { executed: ExecutedTask; failure?: undefined } | { executed?: undefined; failure: SerializedError };
    try {
      settled = { executed: await service.execute(data) };
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
    const timing = { cost: executed?.cost ?? 0, startedAt, finishedAt };
    const outcome: TaskOutcome = settled.failure
      ? { ok: false, error: settled.failure, providerMs: Number(settled.failure.details?.provider_ms ?? 0), ...timing }
      : {
          ok: true,
          body: settled.executed.body,
          usage: settled.executed.usage,
          provider: settled.executed.provider,
          providerMs: settled.executed.providerMs,
          ...timing,
        };
    // Before the answer, so a caller that sends its next request on receipt finds its slot free.
    await this.limits.settle(data.appId, data.admission, executed?.usage.total_tokens ?? 0);
    await this.delivery.deliver(data.taskId, outcome, data.replyTo);
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
      error: failure
        ? { status: failure.status, code: failure.code, message: failure.message, param: failure.param }
        : undefined,
    });
    // After the record, which the event describes; a crash before this line reruns the job, so no event is lost.
    if (data.notify)
      await this.webhookJobs.enqueue(data.appId, data.taskId, executed ? 'task.succeeded' : 'task.failed');
    await this.delivery.forget(data.taskId);
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

    const labels = {
      queue,
      model: data.resolvedModel,
      provider: executed?.provider ?? 'none',
      outcome: executed ? 'succeeded' : 'failed',
    };
    this.metrics.jobDuration.observe(labels, (finishedAt - startedAt) / 1000);
    if (executed) this.countUsage(data.resolvedModel, executed);
    if (failure) throw new UnrecoverableError(`${failure.code}: ${failure.message}`);
    return { status: 'succeeded' };
  }

  private countUsage(model: string, executed: ExecutedTask): void {
    this.metrics.tokens.inc({ model, kind: 'prompt' }, executed.usage.prompt_tokens);
    if (executed.usage.completion_tokens)
      this.metrics.tokens.inc({ model, kind: 'completion' }, executed.usage.completion_tokens);
    if (executed.usage.images) this.metrics.images.inc({ model }, executed.usage.images);
    if (executed.cost > 0) this.metrics.billed.inc({ model }, executed.cost);
  }
}

function isLastAttempt(job: Job): boolean {
  return job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
}

function toFailure(error: unknown, taskId: string, logger: Logger): SerializedError {
  if (error instanceof GatewayError) return error.toJSON();
  logger.error({ taskId, err: (error as Error).message, stack: (error as Error).stack }, 'task failed');
  return new GatewayError('InternalError', 'the task failed inside the gateway').toJSON();
}
