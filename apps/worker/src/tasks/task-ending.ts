import { SerializedError } from '@gateway/common';
import { addUsage, MeteredRoute, UpstreamAttempt, UpstreamUsage } from '@gateway/contracts';
import { RecordFields, taskBase } from '@gateway/db';
import { usageFields } from '@gateway/ledger';
import { PayloadOf, TaskOutcome, TaskQueueName } from '@gateway/queue';
import { Job } from 'bullmq';
import { ExecutedTask } from './task-service';

/** How a task ended: its service's answer, or the failure that is its final answer. */
export type TaskEnd =
  { executed: ExecutedTask; failure?: undefined } | { executed?: undefined; failure: SerializedError };

/** When the task ran: from its pick-up to its end (epoch ms). */
export interface RunTimes {
  startedAt: number;
  finishedAt: number;
}

/** What the caller is answered and GET /v1/tasks shows until the record is written. */
export function outcomeOf({ executed, failure }: TaskEnd, { startedAt, finishedAt }: RunTimes): TaskOutcome {
  const timing = { costNanos: executed?.costNanos ?? 0, startedAt, finishedAt };
  if (failure) return { ok: false, error: failure, providerMs: providerMsOf({ failure }), ...timing };
  return {
    ok: true,
    body: executed.body,
    usage: executed.usage,
    provider: executed.provider,
    ...(executed.route ? { route: executed.route } : {}),
    providerMs: executed.providerMs,
    ...timing,
  };
}

/** Time spent waiting for upstreams; a failure reports it in its details. */
function providerMsOf({ executed, failure }: TaskEnd): number {
  return executed ? executed.providerMs : Number(failure.details?.provider_ms ?? 0);
}

/** The task's MongoDB record, without the result body (the outcome carries it to the record writer). */
export function recordOf<Q extends TaskQueueName>(
  job: Job<PayloadOf<Q>>,
  end: TaskEnd,
  { startedAt, finishedAt }: RunTimes,
  upstreamCalls: UpstreamAttempt[],
): RecordFields {
  const { executed, failure } = end;
  const metered = meteredRoutes(executed, upstreamCalls);
  return {
    ...taskBase(job.data),
    provider: executed?.provider,
    route: executed?.route,
    status: executed ? 'succeeded' : 'failed',
    startedAt: new Date(startedAt),
    finishedAt: new Date(finishedAt),
    providerMs: Math.round(providerMsOf(end)),
    attempts: job.attemptsMade + 1,
    usage: executed ? { ...executed.usage } : undefined,
    costNanos: executed?.costNanos ?? 0,
    error: failure
      ? { status: failure.status, code: failure.code, message: failure.message, param: failure.param }
      : undefined,
    upstream: upstreamCalls.length > 0 ? withoutReports(upstreamCalls) : undefined,
    metered: metered.length > 0 ? metered : undefined,
  };
}

/**
 * What the task adds to its application's roll-up of the day (UsageLedger fields). The latency is from admission
 * (the job's creation) to the answer: what a caller waits, less the api's own handling.
 */
export function usageOf<Q extends TaskQueueName>(
  job: Job<PayloadOf<Q>>,
  { executed }: TaskEnd,
  record: RecordFields,
  finishedAt: number,
): Record<string, number> {
  return usageFields(
    { appId: job.data.appId, model: job.data.resolvedModel, day: record.day },
    {
      calls: 1,
      errors: executed ? 0 : 1,
      promptTokens: executed?.usage.prompt_tokens ?? 0,
      completionTokens: executed?.usage.completion_tokens ?? 0,
      images: executed?.usage.images ?? 0,
      costNanos: record.costNanos ?? 0,
    },
    finishedAt - job.timestamp,
  );
}

/**
 * A task's upstream routes, each with what the gateway billed for its answers (`computed`) and what its answers
 * stated (`reported`), for reconciling with the upstreams' bills (docs/contracts.md, collections). Calls that did
 * not leave the process (the local engine) are not recorded, so they have no entry.
 *
 * Computed is the gateway's own figure where it has one: images are the ones it delivered, not the upstream's
 * `image_count`, and cost is at the catalog's price, not the upstream's stated `cost`. Tokens are billed by the
 * upstream's own count when its answer gives one, so for the call that answered they match by construction; token
 * drift shows calls the upstream answered and the caller was not billed for (an embeddings part of a route that
 * failed afterwards) and answers the gateway had to count itself.
 */
export function meteredRoutes(executed: ExecutedTask | undefined, attempts: UpstreamAttempt[]): MeteredRoute[] {
  const routes = new Map<string, MeteredRoute>();
  const entry = (route: string) => {
    let metered = routes.get(route);
    if (!metered) routes.set(route, (metered = { route, computed: {} }));
    return metered;
  };
  for (const [route, computed] of billedRoutes(executed, attempts)) entry(route).computed = computed;
  for (const attempt of attempts) {
    if (attempt.outcome !== 'ok' || !attempt.reported) continue;
    const metered = entry(attempt.route);
    metered.reported = addUsage(metered.reported ?? {}, attempt.reported);
  }
  return [...routes.values()];
}

/** The attempts as the task record keeps them: what each answer reported is in the task's metered routes. */
export function withoutReports(attempts: UpstreamAttempt[]): UpstreamAttempt[] {
  return attempts.map(({ reported: _reported, ...attempt }) => attempt);
}

/**
 * What the gateway billed per upstream route. A chat, Responses or embeddings answer comes from one route; an image
 * edit's images each from the route whose call made it, at that route's price (an image stored by an earlier run of
 * the job was recorded by that run, so it has no route here).
 */
function billedRoutes(executed: ExecutedTask | undefined, attempts: UpstreamAttempt[]): Map<string, UpstreamUsage> {
  const billed = new Map<string, UpstreamUsage>();
  if (!executed) return billed;
  const upstream = new Set(attempts.map((attempt) => attempt.route));
  const { usage, costNanos } = executed;
  if (executed.billedImages) {
    for (const { route, unitPriceNanos: imageNanos } of executed.billedImages) {
      if (route === undefined || !upstream.has(route)) continue;
      const sums = billed.get(route);
      billed.set(route, { images: (sums?.images ?? 0) + 1, costNanos: (sums?.costNanos ?? 0) + imageNanos });
    }
    return billed;
  }
  if (executed.route !== undefined && upstream.has(executed.route))
    billed.set(executed.route, {
      promptTokens: usage.prompt_tokens,
      ...(usage.completion_tokens !== undefined ? { completionTokens: usage.completion_tokens } : {}),
      costNanos,
    });
  return billed;
}
