import { GatewayError } from '@gateway/common';
import {
  ChatContentPart,
  ChatFunctionTool,
  ChatMessage,
  ChatResponseFormat,
  ChatToolChoice,
  ResponsesContentPart,
  ResponsesFunctionTool,
  ResponsesInputItem,
  ResponsesTextFormat,
  ResponsesToolChoice,
} from '@gateway/contracts';
import type { ChatCompletionRequest } from '../chat/chat-request.service';

/** The Responses request as its schema admits it (responses-request.schema.ts). */
export interface ResponsesRequest {
  model: string;
  input?: string | ResponsesInputItem[];
  instructions?: string | null;
  max_output_tokens?: number | null;
  temperature?: number | null;
  top_p?: number | null;
  tools?: ResponsesFunctionTool[];
  tool_choice?: ResponsesToolChoice;
  parallel_tool_calls?: boolean | null;
  text?: { format?: ResponsesTextFormat; verbosity?: 'low' | 'medium' | 'high' | null } | null;
  stream?: boolean | null;
  stream_options?: { include_obfuscation?: boolean } | null;
  store?: boolean | null;
  previous_response_id?: string | null;
  metadata?: Record<string, string> | null;
  user?: string;
  safety_identifier?: string;
  prompt_cache_key?: string;
  reasoning?: { effort?: string | null; summary?: string | null; generate_summary?: string | null } | null;
  service_tier?: string | null;
  truncation?: 'auto' | 'disabled' | null;
  include?: string[] | null;
  background?: boolean | null;
  conversation?: string | Record<string, unknown> | null;
  max_tool_calls?: number | null;
  prompt?: Record<string, unknown> | null;
  top_logprobs?: number | null;
  prompt_cache_retention?: string | null;
}

/** Where a chat message came from, as the Responses request names it: its item, and its tool calls' items. */
export interface MessageSource {
  param: string;
  toolCalls: string[];
  /** The message kept its content parts one for one, so `content[i]` names the same part in both. */
  sameParts: boolean;
}

export interface ChatTranslation {
  body: ChatCompletionRequest;
  sources: MessageSource[];
  /** Messages before this index are the instructions, which a stored response does not carry over. */
  conversationStart: number;
}

/**
 * A Responses request as the Chat Completions request it asks for (docs/contracts.md, responses): `instructions`
 * first as a system message, then the `history` a previous response left (`previous_response_id`), then the input
 * items; flat function tools nested as chat's; `text.format` as `response_format`; `max_output_tokens` as
 * `max_completion_tokens`. `store`, `metadata` and `previous_response_id` stay with the gateway: an upstream is
 * never asked to store anything. Item references must already be resolved.
 */
export function toChat(request: ResponsesRequest, history: ChatMessage[]): ChatTranslation {
  const messages: ChatMessage[] = [];
  const sources: MessageSource[] = [];
  const add = (message: ChatMessage, source: MessageSource) => {
    messages.push(message);
    sources.push(source);
  };
  if (request.instructions) add({ role: 'system', content: request.instructions }, plain('instructions'));
  const conversationStart = messages.length;
  history.forEach((message) => add(message, plain('previous_response_id')));
  const input: ResponsesInputItem[] =
    typeof request.input === 'string' ? [{ role: 'user', content: request.input }] : (request.input ?? []);
  input.forEach((item, i) => addItem(item, `input[${i}]`, messages, sources));
  return { body: chatFields(request, messages), sources, conversationStart };
}

/** The output items of a previous response, as the chat messages they continue from. */
export function historyOf(items: ResponsesInputItem[]): ChatMessage[] {
  const messages: ChatMessage[] = [];
  for (const item of items) addItem(item, 'previous_response_id', messages, []);
  return messages;
}

function chatFields(request: ResponsesRequest, messages: ChatMessage[]): ChatCompletionRequest {
  const body: ChatCompletionRequest = { model: request.model, messages };
  if (request.stream) body.stream = true;
  if (request.max_output_tokens != null) body.max_completion_tokens = request.max_output_tokens;
  if (request.temperature != null) body.temperature = request.temperature;
  if (request.top_p != null) body.top_p = request.top_p;
  if (request.tools?.length) body.tools = request.tools.map(chatTool);
  if (request.tool_choice !== undefined) body.tool_choice = chatToolChoice(request.tool_choice);
  if (request.parallel_tool_calls != null) body.parallel_tool_calls = request.parallel_tool_calls;
  const format = request.text?.format;
  if (format && format.type !== 'text') body.response_format = chatResponseFormat(format);
  if (request.text?.verbosity) body.verbosity = request.text.verbosity;
  if (request.reasoning?.effort) body.reasoning_effort = request.reasoning.effort;
  if (request.service_tier) body.service_tier = request.service_tier;
  for (const field of ['user', 'safety_identifier', 'prompt_cache_key'] as const) {
    if (request[field] !== undefined) body[field] = request[field];
  }
  return body;
}

function chatTool(tool: ResponsesFunctionTool): ChatFunctionTool {
  const { name, description, parameters, strict } = tool;
  return {
    type: 'function',
    function: {
      name,
      ...(description != null ? { description } : {}),
      ...(parameters != null ? { parameters } : {}),
      ...(strict != null ? { strict } : {}),
    },
  };
}

function chatToolChoice(choice: ResponsesToolChoice): ChatToolChoice {
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

function chatResponseFormat(format: Exclude<ResponsesTextFormat, { type: 'text' }>): ChatResponseFormat {
  if (format.type === 'json_object') return format;
  const { name, description, schema, strict } = format;
  return {
    type: 'json_schema',
    json_schema: {
      name,
      schema,
      ...(description !== undefined ? { description } : {}),
      ...(strict != null ? { strict } : {}),
    },
  };
}

function plain(param: string): MessageSource {
  return { param, toolCalls: [], sameParts: false };
}

/**
 * One input item as chat messages: a message as itself; a `function_call` as a tool call of the assistant message
 * just before it (a new one if there is none), so parallel calls stay one turn; a `function_call_output` as a
 * `tool` message.
 */
function addItem(item: ResponsesInputItem, param: string, messages: ChatMessage[], sources: MessageSource[]): void {
  const last = messages[messages.length - 1];
  if (item.type === 'function_call') {
    const call = {
      id: item.call_id,
      type: 'function' as const,
      function: { name: item.name, arguments: item.arguments },
    };
    if (last?.role === 'assistant' && !last.refusal) {
      last.tool_calls = [...(last.tool_calls ?? []), call];
      sources[sources.length - 1]?.toolCalls.push(param);
    } else {
      messages.push({ role: 'assistant', content: null, tool_calls: [call] });
      sources.push({ param, toolCalls: [param], sameParts: false });
    }
    return;
  }
  if (item.type === 'function_call_output') {
    const content = typeof item.output === 'string' ? item.output : textOf(item.output, `${param}.output`);
    messages.push({ role: 'tool', tool_call_id: item.call_id, content });
    sources.push(plain(param));
    return;
  }
  if (item.type === 'item_reference') throw new Error(`${param}: item references are resolved before translation`);
  const { role } = item;
  if (typeof item.content === 'string') {
    messages.push({ role, content: item.content });
    sources.push(plain(param));
    return;
  }
  if (role === 'assistant') {
    const refusal = item.content.find((part) => part.type === 'refusal');
    const text = textOf(
      item.content.filter((part) => part.type !== 'refusal'),
      `${param}.content`,
    );
    messages.push(
      refusal?.type === 'refusal' ? { role, content: text || null, refusal: refusal.refusal } : { role, content: text },
    );
    sources.push(plain(param));
    return;
  }
  const allText = item.content.every((part) => part.type === 'input_text' || part.type === 'output_text');
  // Text alone is sent as one string, the form every upstream takes; other parts go one for one.
  if (allText || role !== 'user') {
    messages.push({ role, content: textOf(item.content, `${param}.content`) });
    sources.push(plain(param));
    return;
  }
  messages.push({ role, content: item.content.map((part, p) => chatPart(part, `${param}.content[${p}]`)) });
  sources.push({ param, toolCalls: [], sameParts: true });
}

function chatPart(part: ResponsesContentPart, param: string): ChatContentPart {
  switch (part.type) {
    case 'input_text':
    case 'output_text':
      return { type: 'text', text: part.text };
    case 'input_image':
      if (!part.image_url)
        unsupported(`${param}.file_id`, 'an input_image by file_id (no files API here); send image_url');
      return { type: 'image_url', image_url: { url: part.image_url, ...(part.detail ? { detail: part.detail } : {}) } };
    case 'input_file': {
      if (part.file_url) unsupported(`${param}.file_url`, 'an input_file by file_url; send file_data');
      const { file_data, file_id, filename } = part;
      return {
        type: 'file',
        file: {
          ...(file_data !== undefined ? { file_data } : {}),
          ...(file_id ? { file_id } : {}),
          ...(filename !== undefined ? { filename } : {}),
        },
      };
    }
    default:
      return unsupported(param, `a ${part.type} part here`);
  }
}

/** The text of parts that may only be text (a system message, a tool's output). */
function textOf(parts: ResponsesContentPart[], param: string): string {
  return parts
    .map((part, p) => {
      if (part.type === 'input_text' || part.type === 'output_text') return part.text;
      return unsupported(`${param}[${p}]`, `a ${part.type} part here`);
    })
    .join('');
}

function unsupported(param: string, what: string): never {
  throw new GatewayError('UnsupportedParameter', `${param}: ${what} is not supported`, { param });
}

/**
 * The name a Responses caller knows for a field of the chat request it was translated to, so an error says
 * `max_output_tokens` or `input[3].call_id` rather than `max_completion_tokens` or `messages[4].tool_call_id`.
 */
export function responsesParam(chatParam: string, sources: MessageSource[]): string {
  const message = /^messages\[(\d+)\](.*)$/.exec(chatParam);
  if (message) {
    const source = sources[Number(message[1])];
    if (!source) return 'input';
    // The instructions and a previous response's history are one field each.
    if (!source.param.startsWith('input')) return source.param;
    const rest = message[2];
    const call = /^\.tool_calls\[(\d+)\]/.exec(rest);
    if (call) return source.toolCalls[Number(call[1])] ?? source.param;
    if (rest === '.tool_call_id') return `${source.param}.call_id`;
    if (rest.startsWith('.content') && source.sameParts) return `${source.param}${rest}`;
    if (rest.startsWith('.content')) return `${source.param}.content`;
    return source.param;
  }
  const renamed: [RegExp, string][] = [
    [/^messages$/, 'input'],
    [/^max_completion_tokens$/, 'max_output_tokens'],
    [/^response_format(\.json_schema)?/, 'text.format'],
    [/^reasoning_effort$/, 'reasoning.effort'],
    [/^verbosity$/, 'text.verbosity'],
    [/^(tools\[\d+\])\.function/, '$1'],
    [/^tool_choice\.function/, 'tool_choice'],
    [/^tool_choice\.allowed_tools/, 'tool_choice'],
  ];
  for (const [pattern, name] of renamed) if (pattern.test(chatParam)) return chatParam.replace(pattern, name);
  return chatParam;
}
