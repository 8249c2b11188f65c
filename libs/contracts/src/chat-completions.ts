/**
 * OpenAI's Chat Completions shapes as the gateway carries them from the caller to a route and back
 * (docs/contracts.md, chat). A request is kept as the caller sent it, validated, so an OpenAI-compatible upstream
 * gets it unchanged; the local engine reads the fields it implements. Plain data, shared by the api, the worker and
 * the providers.
 */

export type ChatRole = 'system' | 'developer' | 'user' | 'assistant' | 'tool' | 'function';

export type ChatContentPart =
  | { type: 'text'; text: string }
  | { type: 'image_url'; image_url: { url: string; detail?: 'auto' | 'low' | 'high' } }
  | { type: 'input_audio'; input_audio: { data: string; format: string } }
  | { type: 'file'; file: { file_data?: string; file_id?: string; filename?: string } }
  | { type: 'refusal'; refusal: string };

export interface ChatToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

export interface ChatMessage {
  role: ChatRole;
  content?: string | ChatContentPart[] | null;
  name?: string;
  /** assistant */
  tool_calls?: ChatToolCall[];
  refusal?: string | null;
  /** assistant, legacy `functions` */
  function_call?: { name: string; arguments: string } | null;
  /** tool */
  tool_call_id?: string;
  /** assistant, a previous audio answer */
  audio?: { id: string } | null;
  /** assistant, as an answer carried them (url citations), sent back by clients as they came */
  annotations?: unknown[];
}

export interface ChatFunctionTool {
  type: 'function';
  function: { name: string; description?: string; parameters?: Record<string, unknown>; strict?: boolean | null };
}

export type ChatToolChoice =
  | 'none'
  | 'auto'
  | 'required'
  | { type: 'function'; function: { name: string } }
  | { type: 'allowed_tools'; allowed_tools: { mode: 'auto' | 'required'; tools: unknown[] } };

export type ChatResponseFormat =
  | { type: 'text' }
  | { type: 'json_object' }
  | {
      type: 'json_schema';
      json_schema: { name: string; description?: string; schema?: Record<string, unknown>; strict?: boolean | null };
    };

/**
 * The request body less `model`, `stream` and `stream_options`, which the task envelope carries. Field names are
 * OpenAI's, so the body goes upstream as it is.
 */
export interface ChatRequestBody {
  messages: ChatMessage[];
  max_tokens?: number | null;
  max_completion_tokens?: number | null;
  n?: number | null;
  stop?: string | string[] | null;
  temperature?: number | null;
  top_p?: number | null;
  presence_penalty?: number | null;
  frequency_penalty?: number | null;
  logit_bias?: Record<string, number> | null;
  logprobs?: boolean | null;
  top_logprobs?: number | null;
  seed?: number | null;
  user?: string;
  tools?: ChatFunctionTool[];
  tool_choice?: ChatToolChoice;
  parallel_tool_calls?: boolean;
  response_format?: ChatResponseFormat;
  metadata?: Record<string, string> | null;
  store?: boolean | null;
  service_tier?: string | null;
  reasoning_effort?: string | null;
  modalities?: string[] | null;
  audio?: { voice: string; format: string } | null;
  prediction?: { type: 'content'; content: string | ChatContentPart[] } | null;
  prompt_cache_key?: string;
  safety_identifier?: string;
  verbosity?: string | null;
  web_search_options?: Record<string, unknown>;
  /** Deprecated forms of `tools` / `tool_choice`. */
  functions?: { name: string; description?: string; parameters?: Record<string, unknown> }[];
  function_call?: 'none' | 'auto' | { name: string };
}

/**
 * What a request needs of a route beyond plain text in and out. A route declares the features it honours in the
 * catalog; the api refuses a request no route of the model can honour, and the router never falls back to a route
 * that cannot (ChatFeature → the first request field that asked for it, for the 400's `param`).
 */
export const CHAT_FEATURES = [
  'tools',
  'json_object',
  'json_schema',
  'logprobs',
  'n',
  'penalties',
  'logit_bias',
  'image_input',
  'audio_input',
  'file_input',
  'audio_output',
  'reasoning',
  'web_search',
] as const;
export type ChatFeature = (typeof CHAT_FEATURES)[number];

export interface ChatTopLogprob {
  token: string;
  logprob: number;
  bytes: number[] | null;
}

export interface ChatChoiceLogprobs {
  content: (ChatTopLogprob & { top_logprobs: ChatTopLogprob[] })[] | null;
  refusal?: (ChatTopLogprob & { top_logprobs: ChatTopLogprob[] })[] | null;
}

/** One choice of a `chat.completion`. */
export interface ChatChoice {
  index: number;
  message: {
    role: 'assistant';
    content: string | null;
    refusal?: string | null;
    tool_calls?: ChatToolCall[];
    annotations?: unknown[];
    audio?: unknown;
    function_call?: { name: string; arguments: string } | null;
  };
  /** `stop`, `length`, `tool_calls`, `content_filter`, `function_call`, or `cancelled` (the client left). */
  finish_reason: string;
  logprobs: ChatChoiceLogprobs | null;
}

/** The text of a message's content: a string as it is, the text parts of an array joined. */
export function contentText(content: ChatMessage['content']): string {
  if (typeof content === 'string') return content;
  if (!content) return '';
  return content
    .map((part) => (part.type === 'text' ? part.text : part.type === 'refusal' ? part.refusal : ''))
    .join('');
}
