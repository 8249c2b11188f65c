import {
  ChatChoice,
  contentText,
  outputItemId,
  responseIdOf,
  ResponseObject,
  ResponsesOutputItem,
  ResponseStatus,
  ResponsesUsage,
} from '@gateway/contracts';
import type { ChatAnswer } from '@gateway/providers';
import type { ChatJob, ResponsesJob } from '@gateway/queue';

/** A chat task that answers in the Responses shape (POST /v1/responses). */
export type ResponsesTask = ChatJob & { responses: ResponsesJob };

/** How a response ended, from its chat choice's finish reason. */
export interface ResponseEnding {
  status: ResponseStatus;
  incompleteDetails: ResponseObject['incomplete_details'];
}

export function endingOf(finishReason: string | undefined): ResponseEnding {
  if (finishReason === 'length') return { status: 'incomplete', incompleteDetails: { reason: 'max_output_tokens' } };
  if (finishReason === 'content_filter')
    return { status: 'incomplete', incompleteDetails: { reason: 'content_filter' } };
  if (finishReason === 'cancelled') return { status: 'cancelled', incompleteDetails: null };
  return { status: 'completed', incompleteDetails: null };
}

/** The status of the items a response ends with: cut short when the response was. */
export function itemStatusOf(ending: ResponseEnding): 'completed' | 'incomplete' {
  return ending.status === 'completed' ? 'completed' : 'incomplete';
}

/**
 * The output items of a chat choice: its message (text, or a refusal) first, then one `function_call` per tool
 * call. A choice that only calls tools has no message, and one that says nothing at all an empty one.
 */
export function outputItemsOf(taskId: string, choice: ChatChoice | undefined): ResponsesOutputItem[] {
  const status = itemStatusOf(endingOf(choice?.finish_reason));
  const text = contentText(choice?.message.content ?? null);
  const refusal = choice?.message.refusal;
  const calls = choice?.message.tool_calls ?? [];
  const items: ResponsesOutputItem[] = [];
  if (text || refusal || calls.length === 0) {
    items.push({
      type: 'message',
      id: outputItemId(taskId, 'msg', 0),
      status,
      role: 'assistant',
      content: refusal
        ? [{ type: 'refusal', refusal }]
        : [{ type: 'output_text', text, annotations: [], logprobs: [] }],
    });
  }
  for (const call of calls) {
    items.push({
      type: 'function_call',
      id: outputItemId(taskId, 'fc', items.length),
      call_id: call.id,
      name: call.function.name,
      arguments: call.function.arguments,
      status,
    });
  }
  return items;
}

/** OpenAI's usage object from a chat answer's counts, with the details an upstream reported. */
export function usageOf(answer: ChatAnswer): ResponsesUsage {
  const details = (answer.usageDetails ?? {}) as {
    prompt_tokens_details?: { cached_tokens?: number };
    completion_tokens_details?: { reasoning_tokens?: number };
  };
  return {
    input_tokens: answer.promptTokens,
    input_tokens_details: { cached_tokens: details.prompt_tokens_details?.cached_tokens ?? 0 },
    output_tokens: answer.completionTokens,
    output_tokens_details: { reasoning_tokens: details.completion_tokens_details?.reasoning_tokens ?? 0 },
    total_tokens: answer.promptTokens + answer.completionTokens,
  };
}

/**
 * A `response` object of this task: its id and times, the request fields it repeats, and what is known so far
 * (nothing while in progress; the output and usage once it ended).
 */
export function responseObject(
  job: ResponsesTask,
  state: { status: ResponseStatus; output?: ResponsesOutputItem[]; usage?: ResponsesUsage } & Partial<ResponseEnding>,
): ResponseObject {
  return {
    id: responseIdOf(job.taskId),
    object: 'response',
    created_at: Math.floor(job.createdAt / 1000),
    status: state.status,
    background: false,
    error: null,
    incomplete_details: state.incompleteDetails ?? null,
    model: job.model,
    output: state.output ?? [],
    ...job.responses.echo,
    usage: state.usage ?? null,
  };
}

/** The whole answer of a responses task, made of its chat answer's first (only) choice. */
export function finalResponse(
  job: ResponsesTask,
  answer: ChatAnswer,
  output = outputItemsOf(job.taskId, answer.choices[0]),
): ResponseObject {
  const ending = endingOf(answer.choices[0]?.finish_reason);
  return responseObject(job, { ...ending, output, usage: usageOf(answer) });
}
