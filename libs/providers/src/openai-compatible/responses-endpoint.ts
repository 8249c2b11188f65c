import { countMessageTokens, Tokenizer } from '@gateway/catalog';
import { reportedUsage } from '../reported-usage';
import { ProviderError, RespondCall, ResponsesAnswer, UpstreamResponse } from '../provider.types';

/**
 * An upstream's `response` object (OpenAI's Responses endpoint): one that failed or is not finished is a failure the
 * router can retry elsewhere, since it produced nothing to answer with.
 */
export function readResponse(body: unknown): UpstreamResponse {
  const response = body as Partial<UpstreamResponse> | null;
  if (typeof response !== 'object' || response === null || !Array.isArray(response.output))
    throw new ProviderError('upstream answered a response without output', 'retryable');
  if (response.status === 'failed') {
    const error = response.error as { code?: string; message?: string } | null | undefined;
    throw new ProviderError(
      `upstream response failed: ${error?.message ?? 'no reason given'}`,
      'retryable',
      undefined,
      {
        code: error?.code,
      },
    );
  }
  if (response.status !== 'completed' && response.status !== 'incomplete')
    throw new ProviderError(`upstream answered a response that is ${String(response.status)}`, 'retryable');
  return response as UpstreamResponse;
}

/** The answer, counted by the upstream's usage or, without it, by the route's tokenizer. */
export function responsesAnswerOf(
  response: UpstreamResponse,
  call: RespondCall,
  tokenizer: Tokenizer,
  requestId?: string,
): ResponsesAnswer {
  return {
    response,
    promptTokens: response.usage?.input_tokens ?? countMessageTokens(call.request.messages, tokenizer),
    completionTokens: response.usage?.output_tokens ?? tokenizer.count(outputText(response.output)),
    ...(requestId ? { requestId } : {}),
    ...reportedUsage(response.usage),
  };
}

/** The text an answer's items carry: message text and refusals, function call arguments. */
function outputText(items: Record<string, unknown>[]): string {
  return items
    .map((item) => {
      if (typeof item.arguments === 'string') return item.arguments;
      const parts = Array.isArray(item.content) ? (item.content as { text?: string; refusal?: string }[]) : [];
      return parts.map((part) => part.text ?? part.refusal ?? '').join('');
    })
    .join(' ');
}
