import { setTimeout as sleep } from 'node:timers/promises';
import { AppConfig, GatewayError, newId, syncDeadlineMs } from '@gateway/common';
import { JobDispatcher, TaskOutcome, TaskQueueName } from '@gateway/queue';
import { IdempotencyEntry, IdempotencyStore } from '@gateway/redis';
import { Injectable } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { FinalOutcomes } from './tasks/final-outcomes.service';
import type { ResponseMode } from './request-modes';

/**
 * Steps of an idempotent request's first run, which its runner (TaskSubmitter) calls: the key is kept once the job
 * exists, freed if it never will.
 */
export interface EnqueueHooks {
  enqueued(): Promise<void>;
  notEnqueued(): Promise<void>;
}

export interface IdempotentCall {
  appId: string;
  key: string;
  fingerprint: string;
  mode: ResponseMode;
  /** The task's queue, whose synchronous deadline a replay waits for (syncDeadlineMs). */
  queue: TaskQueueName;
  http: { request: FastifyRequest; reply: FastifyReply };
}

/** The first request with the key never ran (refused before enqueueing, or its caller left): run this one. */
const RERUN = Symbol('rerun');
/** A duplicate looks at the outcome this often at first, then less often for long tasks. */
const FAST_POLL_MS = 50;
const SLOW_POLL_MS = 250;
const FAST_POLLS = 40;
/** How often a waiting duplicate checks that the first request is still alive. */
const LIVENESS_EVERY = 8;

/**
 * Idempotency-Key (docs/architecture.md): the first request with a key runs; any later one with the same key and body gets
 * the first one's answer (status and body, errors included) without running or billing anything, waiting for it
 * if it is still running, on whichever api instance; the same key with another body is refused.
 */
@Injectable()
export class IdempotentRequests {
  constructor(
    private readonly config: AppConfig,
    private readonly store: IdempotencyStore,
    private readonly outcomes: FinalOutcomes,
    private readonly dispatcher: JobDispatcher,
  ) {}

  async once(call: IdempotentCall, run: (taskId: string, hooks: EnqueueHooks) => Promise<string>): Promise<string> {
    // A key whose first request never ran is freed and claimed again; bounded so that a flapping key cannot spin.
    for (let round = 0; round < 3; round++) {
      const entry: IdempotencyEntry = {
        fingerprint: call.fingerprint,
        taskId: newId('task'),
        async: call.mode === 'async',
      };
      const claim = await this.store.claim(call.appId, call.key, entry);
      if (claim.owner) {
        return run(entry.taskId, {
          enqueued: () => this.store.keep(call.appId, call.key, entry),
          notEnqueued: () => this.store.release(call.appId, call.key, entry.taskId),
        });
      }
      if (claim.entry.fingerprint !== call.fingerprint) {
        throw new GatewayError(
          'IdempotencyKeyReused',
          'this Idempotency-Key was already used with a different request; send a new key for a new request',
          {
            param: 'Idempotency-Key',
          },
        );
      }
      const replayed = await this.replay(call, claim.entry);
      if (replayed !== RERUN) return replayed;
    }
    throw new GatewayError('InternalError', 'the request for this Idempotency-Key could not be settled; retry it');
  }

  private async replay(call: IdempotentCall, entry: IdempotencyEntry): Promise<string | typeof RERUN> {
    const { request, reply } = call.http;
    request.taskId = entry.taskId;
    reply
      .header('x-task-id', entry.taskId)
      .header('idempotent-replayed', 'true')
      .header('content-type', 'application/json; charset=utf-8');
    if (entry.async) {
      reply.status(202);
      return JSON.stringify({ task_id: entry.taskId, status: 'queued' });
    }
    const outcome = await this.awaitOutcome(call, entry);
    if (outcome === RERUN) return RERUN;
    if (outcome.ok && outcome.route) reply.header('x-gateway-route', outcome.route);
    if (!outcome.ok) throw GatewayError.from(outcome.error);
    return outcome.body;
  }

  /** Polls rather than subscribes: the first request may be held by another api instance, or by none any more. */
  private async awaitOutcome(call: IdempotentCall, entry: IdempotencyEntry): Promise<TaskOutcome | typeof RERUN> {
    const deadline = Date.now() + syncDeadlineMs(this.config, call.queue);
    const raw = call.http.reply.raw;
    for (let poll = 0; ; poll++) {
      const final = await this.outcomes.findFinal(entry.taskId);
      if (final === 'cancelled') {
        await this.store.release(call.appId, call.key, entry.taskId);
        return RERUN;
      }
      if (final) return final;
      if (poll % LIVENESS_EVERY === LIVENESS_EVERY - 1 && (await this.firstRequestGone(call, entry))) return RERUN;
      if (Date.now() >= deadline) {
        throw new GatewayError(
          'Timeout',
          `the first request with this Idempotency-Key is still running; fetch the result with GET /v1/tasks/${entry.taskId}`,
          {
            details: { task_id: entry.taskId },
          },
        );
      }
      if (raw.destroyed)
        throw new GatewayError('Timeout', 'the client disconnected', { details: { task_id: entry.taskId } });
      await sleep(poll < FAST_POLLS ? FAST_POLL_MS : SLOW_POLL_MS);
    }
  }

  /** No job and no longer holding the key: the first request ended before enqueueing (its key expired or was freed). */
  private async firstRequestGone(call: IdempotentCall, entry: IdempotencyEntry): Promise<boolean> {
    const [job, holder] = await Promise.all([
      this.dispatcher.jobState(entry.taskId),
      this.store.read(call.appId, call.key),
    ]);
    if (job) return false;
    if (await this.outcomes.findFinal(entry.taskId)) return false;
    return holder?.taskId !== entry.taskId;
  }
}
