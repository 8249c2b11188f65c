import type { ResponseObject } from '@gateway/contracts';
import type { ChatAnswer } from '@gateway/providers';
import type { ChatJob } from '@gateway/queue';
import { finalResponse, ResponsesTask } from './response-object';

/** A chat task of POST /v1/responses, answered in the Responses shape (ChatTaskService). */
export function isResponsesTask(job: ChatJob): job is ResponsesTask {
  return job.responses !== undefined;
}

/** The task's result: the response a stream already sent whole, else the one its chat answer makes. */
export function responsesBody(job: ResponsesTask, answer: { value: ChatAnswer; response?: ResponseObject }): string {
  return JSON.stringify(answer.response ?? finalResponse(job, answer.value));
}

/**
 * What a stored response keeps for `previous_response_id`: its conversation before the answer, less the
 * instructions (the api bounded its size before queueing it). Nothing when the caller sent `store: false`.
 */
export function keptConversation(job: ChatJob): string | undefined {
  const from = job.responses?.keepFrom;
  return from === undefined ? undefined : JSON.stringify(job.request.messages.slice(from));
}
