import { CatalogService } from '@gateway/catalog';
import { GatewayError, LOGGER, newId } from '@gateway/common';
import { Endpoint } from '@gateway/contracts';
import { taskBase, TasksRepository } from '@gateway/db';
import { Admission, JobDispatcher, PayloadOf, TaskEnvelope, TaskQueueName } from '@gateway/queue';
import {
  AdmissionReserve,
  assertInScope,
  LimitsService,
  Principal,
  rateLimitHeaders,
  worstCaseCostNanos,
} from '@gateway/tenancy';
import { Inject, Injectable } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Logger } from 'pino';
import { EnqueueHooks, IdempotentRequests } from './idempotent-requests.service';
import { SseDialect, StreamRelay } from './stream-relay.service';
import { idempotencyKeyOf, requestFingerprint, ResponseMode, responseModeOf } from './request-modes';

export type TaskRequest<Q extends TaskQueueName> = Omit<PayloadOf<Q>, keyof TaskEnvelope>;

/** What a /v1 controller needs to run a task: which endpoint, who asks, for which model, on which HTTP exchange. */
export interface Submission<E extends Endpoint> {
  /** Its row of the endpoints table: the queue, the capability the application's scope must allow, its name. */
  endpoint: E;
  /**
   * Tokens held against the quota until the task reports its real usage: counted only for an application that has
   * a token quota, so no other request loads a tokenizer.
   */
  reserveTokens: () => number;
  /** Images the request asks for (image edits' `n`), priced at admission for an application with a budget. */
  images?: number;
  principal: Principal;
  model: string;
  resolvedModel: string;
  /** The job's request, or how to make it once the request is admitted (e.g. storing large images). */
  request: TaskRequest<E['queue']> | ((taskId: string) => Promise<TaskRequest<E['queue']>>);
  http: { request: FastifyRequest; reply: FastifyReply };
}

/**
 * The api's first step for a validated request (docs/architecture.md): admits it against the limits, then has
 * JobDispatcher add its job. A synchronous call holds the connection until the reply, `X-Async: enable` answers
 * 202 with the task id at once, and an Idempotency-Key makes retries replay the first answer. The task record is
 * written by the worker once the task is final; until then BullMQ holds its state.
 */
@Injectable()
export class TaskSubmitter {
  constructor(
    private readonly dispatcher: JobDispatcher,
    private readonly tasks: TasksRepository,
    private readonly limits: LimitsService,
    private readonly idempotent: IdempotentRequests,
    private readonly relay: StreamRelay,
    private readonly catalog: CatalogService,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  /** Resolves with the response body as JSON text, sent verbatim. */
  async submit<E extends Endpoint>(submission: Submission<E>): Promise<string> {
    const { http, principal } = submission;
    assertInScope(principal, submission.endpoint.capability, [submission.model, submission.resolvedModel]);
    const mode = responseModeOf(http.request);
    const key = idempotencyKeyOf(http.request);
    if (key === undefined) return this.admitAndDispatch(submission, mode, newId('task'));
    return this.idempotent.once(
      {
        appId: principal.appId,
        key,
        fingerprint: requestFingerprint(http.request),
        mode,
        queue: submission.endpoint.queue,
        http,
      },
      (taskId, hooks) => this.admitAndDispatch(submission, mode, taskId, hooks),
    );
  }

  /**
   * A streamed answer (chat or responses `stream: true`): enqueued like an async task, then relayed from the task's
   * Redis Stream as SSE in the endpoint's dialect. Not replayable, so an Idempotency-Key is refused rather than
   * silently ignored.
   */
  async stream<E extends Endpoint>(submission: Submission<E>, dialect?: SseDialect): Promise<void> {
    const { http, principal } = submission;
    assertInScope(principal, submission.endpoint.capability, [submission.model, submission.resolvedModel]);
    if (responseModeOf(http.request) === 'async') {
      throw new GatewayError('UnsupportedParameter', 'stream: true cannot be combined with X-Async: enable', {
        param: 'X-Async',
      });
    }
    if (idempotencyKeyOf(http.request) !== undefined) {
      throw new GatewayError(
        'UnsupportedParameter',
        'Idempotency-Key cannot be used with stream: true: a stream cannot be replayed',
        { param: 'Idempotency-Key' },
      );
    }
    const taskId = newId('task');
    await this.admitAndDispatch(submission, 'stream', taskId);
    await this.relay.relay(taskId, http, dialect);
  }

  private async admitAndDispatch<E extends Endpoint>(
    submission: Submission<E>,
    mode: ResponseMode | 'stream',
    taskId: string,
    hooks?: EnqueueHooks,
  ): Promise<string> {
    const { http, principal } = submission;
    let admission: Admission | undefined;
    let enqueued = false;
    const onEnqueued = async () => {
      enqueued = true;
      // Only now: the id of a job that was never added would name nothing a caller could read back.
      http.reply.header('x-task-id', taskId);
      await hooks?.enqueued();
    };
    try {
      const admitted = await this.limits.admit(principal, this.reserveOf(submission));
      admission = admitted.admission;
      if (admitted.rateLimit) http.reply.headers(rateLimitHeaders(admitted.rateLimit));
      const payload = this.envelope(submission, taskId, await this.prepare(submission, taskId), admission);
      http.request.taskId = taskId;
      if (mode === 'sync') return await this.awaitReply(submission, payload, onEnqueued);
      await this.dispatcher.dispatch(submission.endpoint.queue, payload);
      await onEnqueued();
      if (mode === 'stream') return '';
      http.reply.status(202).header('content-type', 'application/json; charset=utf-8');
      return JSON.stringify({ task_id: taskId, status: 'queued' });
    } catch (error) {
      // Never enqueued: nothing will settle the limits or answer the key but this request.
      if (!enqueued) {
        if (admission) await this.limits.settle(principal.appId, admission, 0);
        await hooks?.notEnqueued();
      }
      throw error;
    }
  }

  /** Waits for the outcome; a 504 leaves the task running with its limits held, and its result retrievable. */
  private async awaitReply<E extends Endpoint>(
    submission: Submission<E>,
    payload: PayloadOf<E['queue']>,
    onEnqueued: () => Promise<void>,
  ): Promise<string> {
    const { http } = submission;
    const onClose = () => {
      if (!http.reply.raw.writableFinished) void this.abandon(payload);
    };
    http.reply.raw.once('close', onClose);
    try {
      const outcome = await this.dispatcher.dispatchAndWait(submission.endpoint.queue, payload, onEnqueued);
      // An outcome proves the job exists, and its reply can overtake the acknowledgement of the add.
      http.reply.header('x-task-id', payload.taskId);
      http.request.gatewayTiming.providerMs = outcome.providerMs;
      if (!outcome.ok) throw GatewayError.from(outcome.error);
      // What served, whatever id the body names (docs/contracts.md, headers).
      if (outcome.route) http.reply.header('x-gateway-route', outcome.route);
      http.reply.header('content-type', 'application/json; charset=utf-8');
      return outcome.body;
    } finally {
      http.reply.raw.removeListener('close', onClose);
    }
  }

  /** What admission holds for the request: its tokens, and for a budget its worst-case cost at the catalog's prices. */
  private reserveOf<E extends Endpoint>(submission: Submission<E>): AdmissionReserve {
    return {
      tokens: submission.reserveTokens,
      costNanos: (tokens) => {
        const spec = this.catalog.find(submission.resolvedModel);
        return spec ? worstCaseCostNanos(spec, { tokens, images: submission.images ?? 0 }) : 0;
      },
    };
  }

  private async prepare<E extends Endpoint>(
    submission: Submission<E>,
    taskId: string,
  ): Promise<TaskRequest<E['queue']>> {
    return typeof submission.request === 'function' ? submission.request(taskId) : submission.request;
  }

  private envelope<E extends Endpoint>(
    submission: Submission<E>,
    taskId: string,
    request: TaskRequest<E['queue']>,
    admission: Admission,
  ): PayloadOf<E['queue']> {
    const envelope: TaskEnvelope = {
      taskId,
      appId: submission.principal.appId,
      requestId: submission.http.request.id,
      model: submission.model,
      resolvedModel: submission.resolvedModel,
      endpoint: submission.endpoint.name,
      createdAt: Date.now(),
      keyId: submission.principal.keyId,
      ...(submission.principal.ownerId ? { ownerId: submission.principal.ownerId } : {}),
      async: responseModeOf(submission.http.request) === 'async',
      ...(admission.leaseId || admission.reservedTokens || admission.budget ? { admission } : {}),
      ...(submission.principal.webhooks ? { notify: true } : {}),
      ...(submission.principal.bodies ? { bodies: submission.principal.bodies } : {}),
      ...(submission.http.request.trace?.traceparent ? { traceparent: submission.http.request.trace.traceparent } : {}),
    };
    return { ...request, ...envelope } as PayloadOf<E['queue']>;
  }

  /** The caller left before a worker took the job: nothing runs and nothing is billed. */
  private async abandon(payload: TaskEnvelope): Promise<void> {
    try {
      if (!(await this.dispatcher.abandon(payload.taskId))) return;
      await this.limits.settle(payload.appId, payload.admission, 0);
      await this.tasks.record({
        ...taskBase(payload),
        status: 'cancelled',
        finishedAt: new Date(),
        attempts: 0,
        costNanos: 0,
        error: {
          status: 499,
          code: 'ClientClosedRequest',
          message: 'the client disconnected before the task started; nothing was run or billed',
        },
      });
      this.logger.info({ taskId: payload.taskId }, 'client disconnected before pick-up; job removed');
    } catch (error) {
      this.logger.warn({ taskId: payload.taskId, err: (error as Error).message }, 'could not abandon task');
    }
  }
}
