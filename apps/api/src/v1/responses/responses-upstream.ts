import {
  ChatContentPart,
  ChatMessage,
  contentText,
  ResponsesContentPart,
  ResponsesInputItem,
  UpstreamInputItem,
  UpstreamResponsesRequest,
} from '@gateway/contracts';
import type { ResponsesRequest } from './responses-to-chat';
import type { StoredResponse } from './stored-responses.service';

/**
 * The request an upstream with the Responses endpoint is sent (catalog `responses`; docs/contracts.md, responses):
 * the caller's, as sent, less what the gateway keeps. `store` goes as false, so the upstream keeps nothing; the
 * gateway stores the response itself, with its `metadata`. `previous_response_id` and `item_reference` name the
 * gateway's records: the conversation a previous response continues and the items references name go into `input`
 * as items, and every item goes without the gateway's `id`, which the upstream never made. `model` and `stream` are
 * the provider's to set. Item references must already be resolved (ResponsesRequestService).
 */
export function upstreamRequest(request: ResponsesRequest, previous: StoredResponse | null): UpstreamResponsesRequest {
  const {
    model: _model,
    stream,
    stream_options: streamOptions,
    store: _store,
    metadata: _metadata,
    previous_response_id: _previousResponseId,
    input,
    ...passed
  } = request;
  const history = previous ? [...itemsOf(previous.conversation), ...previous.response.output] : [];
  return {
    ...passed,
    ...inputOf(input, history),
    // Only allowed with `stream`, which the provider sets for a streamed task.
    ...(stream && streamOptions != null ? { stream_options: streamOptions } : {}),
    store: false,
  };
}

function inputOf(
  input: ResponsesRequest['input'],
  history: ResponsesInputItem[],
): Pick<UpstreamResponsesRequest, 'input'> {
  if (history.length === 0 && (input === undefined || typeof input === 'string'))
    return input === undefined ? {} : { input };
  const items = typeof input === 'string' ? [{ role: 'user' as const, content: input }] : (input ?? []);
  return { input: [...history, ...items].map(withoutId) };
}

function withoutId(item: ResponsesInputItem): UpstreamInputItem {
  if (item.type === 'item_reference')
    throw new Error('item references are resolved before the upstream request is made');
  const { id: _id, ...rest } = item;
  return rest;
}

/**
 * A stored conversation (chat messages, as translation made them) as the Responses items it came from: messages as
 * messages, an assistant turn's tool calls as `function_call` items after its text, tool results as
 * `function_call_output` items.
 */
function itemsOf(messages: ChatMessage[]): ResponsesInputItem[] {
  return messages.flatMap((message): ResponsesInputItem[] => {
    switch (message.role) {
      case 'system':
      case 'developer':
      case 'user':
        return [{ role: message.role, content: contentOf(message.content) }];
      case 'assistant':
        return [...assistantMessage(message), ...(message.tool_calls ?? []).map(functionCall)];
      case 'tool':
        return [
          { type: 'function_call_output', call_id: message.tool_call_id ?? '', output: contentText(message.content) },
        ];
      default:
        // Translation never makes legacy `function` turns.
        return [];
    }
  });
}

function assistantMessage(message: ChatMessage): ResponsesInputItem[] {
  if (message.refusal)
    return [{ type: 'message', role: 'assistant', content: [{ type: 'refusal', refusal: message.refusal }] }];
  const text = contentText(message.content);
  return text ? [{ role: 'assistant', content: text }] : [];
}

function functionCall(call: NonNullable<ChatMessage['tool_calls']>[number]): ResponsesInputItem {
  return { type: 'function_call', call_id: call.id, name: call.function.name, arguments: call.function.arguments };
}

function contentOf(content: ChatMessage['content']): string | ResponsesContentPart[] {
  if (!Array.isArray(content)) return content ?? '';
  return content.flatMap((part): ResponsesContentPart[] => {
    switch (part.type) {
      case 'text':
        return [{ type: 'input_text', text: part.text }];
      case 'image_url':
        return [{ type: 'input_image', image_url: part.image_url.url, ...detailOf(part) }];
      case 'file':
        return [{ type: 'input_file', ...part.file }];
      default:
        // Translation makes neither audio nor refusal parts from Responses input.
        return [];
    }
  });
}

function detailOf(part: Extract<ChatContentPart, { type: 'image_url' }>): { detail?: 'auto' | 'low' | 'high' } {
  return part.image_url.detail ? { detail: part.image_url.detail } : {};
}
