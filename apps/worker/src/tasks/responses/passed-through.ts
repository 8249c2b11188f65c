import { outputItemId, ResponseObject, ResponsesOutputItem, ResponsesUsage } from '@gateway/contracts';
import type { ResponsesAnswer } from '@gateway/providers';
import { responseObject, ResponsesTask } from './response-object';

/** The output item kinds a response of the gateway carries, with the prefix of their ids. */
const ID_PREFIXES: Record<string, 'msg' | 'fc'> = { message: 'msg', function_call: 'fc' };

/** The prefix of the gateway's id for an upstream's output item; none for a kind it leaves out. */
export function idPrefixOf(item: unknown): 'msg' | 'fc' | undefined {
  const type = typeof item === 'object' && item !== null ? (item as { type?: unknown }).type : undefined;
  return typeof type === 'string' ? ID_PREFIXES[type] : undefined;
}

/**
 * The gateway's response from an upstream's own (a route with the Responses endpoint, docs/contracts.md, responses):
 * the output items as the upstream answered them, renumbered with the gateway's ids (`msg_<task>_<i>`,
 * `fc_<task>_<i>`) so `item_reference` and `previous_response_id` find them in the task's record. Kinds the gateway
 * has no ids for (reasoning, …) are left out, as a translated answer has none. The id, time, model and echoed request
 * fields are the task's, as for any response; status, output and usage are the upstream's.
 */
export function passedThroughResponse(job: ResponsesTask, answer: ResponsesAnswer): ResponseObject {
  const { response } = answer;
  const output = response.output.flatMap((item) => {
    const prefix = idPrefixOf(item);
    return prefix ? [{ item, prefix }] : [];
  });
  const ours = output.map(
    ({ item, prefix }, index) => ({ ...item, id: outputItemId(job.taskId, prefix, index) }) as ResponsesOutputItem,
  );
  return responseObject(job, {
    status: response.status,
    incompleteDetails: (response.incomplete_details ?? null) as ResponseObject['incomplete_details'],
    output: ours,
    usage: usageOf(answer),
  });
}

/** The upstream's usage, as the tokens it is billed by, with its cached and reasoning counts. */
function usageOf(answer: ResponsesAnswer): ResponsesUsage {
  const usage = answer.response.usage;
  return {
    input_tokens: answer.promptTokens,
    input_tokens_details: { cached_tokens: usage?.input_tokens_details?.cached_tokens ?? 0 },
    output_tokens: answer.completionTokens,
    output_tokens_details: { reasoning_tokens: usage?.output_tokens_details?.reasoning_tokens ?? 0 },
    total_tokens: answer.promptTokens + answer.completionTokens,
  };
}
