import type { ChatJob } from '@gateway/queue';
import type { ResponsesTask } from './response-object';

/** A chat task of POST /v1/responses, answered in the Responses shape (ResponsesRunner). */
export function isResponsesTask(job: ChatJob): job is ResponsesTask {
  return job.responses !== undefined;
}

/**
 * What a stored response keeps for `previous_response_id`: its conversation before the answer, less the
 * instructions (the api bounded its size before queueing it). Nothing when the caller sent `store: false`.
 */
export function keptConversation(job: ChatJob): string | undefined {
  const from = job.responses?.keepFrom;
  return from === undefined ? undefined : JSON.stringify(job.request.messages.slice(from));
}
