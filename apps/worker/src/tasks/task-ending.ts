import { SerializedError } from '@gateway/common';
import { UpstreamAttempt } from '@gateway/contracts';
import { RecordFields, taskBase } from '@gateway/db';
import { usageFields } from '@gateway/ledger';
import { PayloadOf, TaskOutcome, TaskQueueName } from '@gateway/queue';
import { Job } from 'bullmq';
import { ExecutedTask } from './task-service';
import { meteredRoutes, withoutReports } from './upstream-metering';

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
