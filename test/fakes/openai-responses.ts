import { randomBytes } from 'node:crypto';
import { ChatAnswerOptions, argumentPieces, chatCompletion } from './openai-chat';
import { ChatMessage, ChatRequest, ChatTool, ChatToolChoice } from './openai-chat-request';
import { ResponsesFunctionTool, ResponsesItem, ResponsesPart, ResponsesRequest } from './openai-responses-request';
import { documented } from './openai-shapes';

/**
 * The OpenAI fake's answers on POST /v1/responses, deterministic per request: the model decides as the fake's chat
 * does (openai-chat.ts: echo the user, call a tool the user names, JSON valid against a json_schema format), on the
 * conversation the input items stand for, and answers OpenAI's `response` object: a `message` item with its
 * `output_text`, one `function_call` item per call, `incomplete` where `max_output_tokens` cut it, usage in input
 * and output tokens. Streamed as OpenAI documents (responseEvents).
 */

type OutputItem = Record<string, unknown> & { id: string; type: 'message' | 'function_call' };

export interface ResponseAnswer {
  id: string;
  status: 'completed' | 'incomplete';
  output: OutputItem[];
  [field: string]: unknown;
}

export function responseOf(request: ResponsesRequest, options: ChatAnswerOptions): ResponseAnswer {
  const chat = chatCompletion(chatRequestOf(request), 'openai', options);
  const [choice] = chat.choices;
  const id = `resp_fake${options.callNumber}`;
  const message = choice.message as { content: string | null; tool_calls?: ChatToolCallAnswer[] };
  const output: OutputItem[] = [];
  const cut = choice.finish_reason === 'length';
  const status = cut ? 'incomplete' : 'completed';
  if (message.content !== null) {
    output.push(
      documented('outputMessage', {
        id: `msg_fake${options.callNumber}_${output.length}`,
        type: 'message' as const,
        status,
        content: [
          documented('outputText', { type: 'output_text', annotations: [], logprobs: [], text: message.content }),
        ],
        role: 'assistant',
      }),
    );
  }
  for (const call of message.tool_calls ?? []) {
    output.push(
      documented('functionCall', {
        id: `fc_fake${options.callNumber}_${output.length}`,
        type: 'function_call' as const,
        status,
        arguments: call.function.arguments,
        call_id: call.id,
        name: call.function.name,
      }),
    );
  }
  const { prompt_tokens: input, completion_tokens: generated } = chat.usage;
  return documented('response', {
    id,
    object: 'response',
    created_at: chat.created,
    status,
    background: false,
    completed_at: chat.created,
    error: null,
    incomplete_details: cut ? { reason: 'max_output_tokens' } : null,
    instructions: request.instructions ?? null,
    max_output_tokens: request.max_output_tokens ?? null,
    max_tool_calls: null,
    model: request.model,
    output,
    parallel_tool_calls: request.parallel_tool_calls ?? true,
    previous_response_id: null,
    prompt_cache_key: request.prompt_cache_key ?? null,
    prompt_cache_retention: null,
    reasoning: { effort: null, summary: null },
    safety_identifier: request.safety_identifier ?? null,
    service_tier: 'default',
    store: request.store ?? true,
    temperature: request.temperature ?? 1,
    text: { format: request.text?.format ?? { type: 'text' }, verbosity: request.text?.verbosity ?? 'medium' },
    tool_choice: request.tool_choice ?? 'auto',
    // OpenAI answers each function tool with its description (null when none) and, when not given, strict mode on.
    tools: (request.tools ?? []).map((tool) => ({ description: null, ...tool, strict: tool.strict ?? true })),
    top_logprobs: request.top_logprobs ?? 0,
    top_p: request.top_p ?? 1,
    truncation: request.truncation ?? 'disabled',
    usage: documented('responseUsage', {
      input_tokens: input,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens: generated,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: input + generated,
    }),
    user: request.user ?? null,
    metadata: request.metadata ?? {},
  });
}

type ChatToolCallAnswer = { id: string; function: { name: string; arguments: string } };

/** An event to send, and whether it carries a piece of the answer (what a test counts as sent). */
export interface PlannedEvent {
  data: Record<string, unknown>;
  piece: boolean;
}

/**
 * OpenAI's stream of a response: `response.created` and `response.in_progress` (the response with no output yet),
 * then per item `response.output_item.added`, for a message its content part and `output_text` deltas, for a
 * function call its argument deltas, each with its `done` event, then `response.output_item.done`; last
 * `response.completed` (or `response.incomplete`) with the whole response. Every event has `sequence_number`, and
 * a delta an `obfuscation` unless `stream_options.include_obfuscation` is false.
 */
export function responseEvents(whole: ResponseAnswer, request: ResponsesRequest): PlannedEvent[] {
  const planned: PlannedEvent[] = [];
  const obfuscated = request.stream_options?.include_obfuscation !== false;
  const push = (type: string, fields: Record<string, unknown>, piece = false) => {
    const event = { type, sequence_number: planned.length, ...fields };
    if (piece && obfuscated) Object.assign(event, { obfuscation: randomBytes(6).toString('base64url') });
    planned.push({ data: documented(type as 'response.created', event), piece });
  };
  const opening = { ...whole, status: 'in_progress', completed_at: null, output: [], usage: null };
  push('response.created', { response: opening });
  push('response.in_progress', { response: opening });
  whole.output.forEach((item, outputIndex) => {
    const at = { item_id: item.id, output_index: outputIndex };
    if (item.type === 'message') {
      const [part] = item.content as { text: string }[];
      push('response.output_item.added', {
        output_index: outputIndex,
        item: { ...item, status: 'in_progress', content: [] },
      });
      const place = { ...at, content_index: 0 };
      push('response.content_part.added', { ...place, part: { ...part, text: '' } });
      for (const delta of part.text.split(/(?<= )/).filter(Boolean)) {
        push('response.output_text.delta', { ...place, delta, logprobs: [] }, true);
      }
      push('response.output_text.done', { ...place, text: part.text, logprobs: [] });
      push('response.content_part.done', { ...place, part });
    } else {
      const args = item.arguments as string;
      push('response.output_item.added', {
        output_index: outputIndex,
        item: { ...item, status: 'in_progress', arguments: '' },
      });
      for (const delta of argumentPieces(args)) push('response.function_call_arguments.delta', { ...at, delta }, true);
      push('response.function_call_arguments.done', { ...at, name: item.name, arguments: args });
    }
    push('response.output_item.done', { output_index: outputIndex, item });
  });
  push(`response.${whole.status}`, { response: whole });
  return planned;
}

// --- the conversation the request stands for, as the fake's chat reads it

function chatRequestOf(request: ResponsesRequest): ChatRequest {
  const messages: ChatMessage[] = [];
  if (request.instructions) messages.push({ role: 'system', content: request.instructions });
  const items: ResponsesItem[] =
    typeof request.input === 'string' ? [{ role: 'user', content: request.input }] : (request.input ?? []);
  for (const item of items) addItem(item, messages);
  const format = request.text?.format;
  return {
    model: request.model,
    messages,
    ...(request.max_output_tokens != null ? { max_completion_tokens: request.max_output_tokens } : {}),
    ...(request.tools?.length ? { tools: request.tools.map(chatToolOf) } : {}),
    ...(request.tool_choice !== undefined ? { tool_choice: chatToolChoiceOf(request.tool_choice) } : {}),
    ...(request.parallel_tool_calls != null ? { parallel_tool_calls: request.parallel_tool_calls } : {}),
    ...(format?.type === 'json_schema'
      ? { response_format: { type: 'json_schema', json_schema: { name: format.name, schema: format.schema } } }
      : format?.type === 'json_object'
        ? { response_format: { type: 'json_object' } }
        : {}),
  };
}

/** Calls join the assistant turn before them; each output is a tool message answering its call. */
function addItem(item: ResponsesItem, messages: ChatMessage[]): void {
  if (item.type === 'item_reference') return;
  if (item.type === 'function_call') {
    const call = {
      id: item.call_id,
      type: 'function' as const,
      function: { name: item.name, arguments: item.arguments },
    };
    const last = messages[messages.length - 1];
    if (last?.role === 'assistant') last.tool_calls = [...(last.tool_calls ?? []), call];
    else messages.push({ role: 'assistant', content: null, tool_calls: [call] });
    return;
  }
  if (item.type === 'function_call_output') {
    messages.push({ role: 'tool', tool_call_id: item.call_id, content: textOfParts(item.output) });
    return;
  }
  messages.push({ role: item.role, content: textOfParts(item.content) });
}

function textOfParts(content: string | ResponsesPart[]): string {
  if (typeof content === 'string') return content;
  return content.map((part) => part.text ?? part.refusal ?? '').join('');
}

function chatToolOf(tool: ResponsesFunctionTool): ChatTool {
  return {
    type: 'function',
    function: { name: tool.name, ...(tool.parameters ? { parameters: tool.parameters } : {}) },
  };
}

function chatToolChoiceOf(choice: NonNullable<ResponsesRequest['tool_choice']>): ChatToolChoice {
  if (typeof choice === 'string') return choice;
  if (choice.type === 'function') return { type: 'function', function: { name: choice.name } };
  return {
    type: 'allowed_tools',
    allowed_tools: {
      mode: choice.mode,
      tools: choice.tools.map((tool) => ({ type: 'function', function: { name: tool.name } })),
    },
  };
}
