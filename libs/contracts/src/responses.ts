/**
 * OpenAI's Responses API shapes as the gateway carries them (docs/contracts.md, responses): the input items a caller
 * sends, the output items and the `response` object it answers. A Responses request runs as a chat task: the api
 * translates it to a Chat Completions request, the worker shapes the chat answer back. Plain data, shared by the
 * api (translation, previous responses) and the worker (shaping, stream events).
 */

export type ResponsesContentPart =
  | { type: 'input_text'; text: string }
  | { type: 'output_text'; text: string; annotations?: unknown[]; logprobs?: unknown[] }
  | { type: 'refusal'; refusal: string }
  | { type: 'input_image'; image_url?: string | null; file_id?: string | null; detail?: 'auto' | 'low' | 'high' }
  | { type: 'input_file'; file_data?: string; file_id?: string | null; filename?: string; file_url?: string };

/** A message of the conversation; `type` may be left out, as OpenAI's easy input form does. */
export interface ResponsesMessageItem {
  type?: 'message';
  role: 'user' | 'system' | 'developer' | 'assistant';
  content: string | ResponsesContentPart[];
  id?: string;
  status?: string;
  phase?: string | null;
}

export interface ResponsesFunctionCallItem {
  type: 'function_call';
  call_id: string;
  name: string;
  arguments: string;
  id?: string;
  status?: string;
}

export interface ResponsesFunctionCallOutputItem {
  type: 'function_call_output';
  call_id: string;
  output: string | ResponsesContentPart[];
  id?: string | null;
  status?: string | null;
}

/** An output item of an earlier stored response, named by its id. */
export interface ResponsesItemReference {
  type: 'item_reference';
  id: string;
}

export type ResponsesInputItem =
  ResponsesMessageItem | ResponsesFunctionCallItem | ResponsesFunctionCallOutputItem | ResponsesItemReference;

/** Responses' flat function tool: the chat tool's `function` fields at the top level. */
export interface ResponsesFunctionTool {
  type: 'function';
  name: string;
  description?: string | null;
  parameters?: Record<string, unknown> | null;
  strict?: boolean | null;
}

export type ResponsesToolChoice =
  | 'none'
  | 'auto'
  | 'required'
  | { type: 'function'; name: string }
  | { type: 'allowed_tools'; mode: 'auto' | 'required'; tools: { type: 'function'; name: string }[] };

export type ResponsesTextFormat =
  | { type: 'text' }
  | { type: 'json_object' }
  | {
      type: 'json_schema';
      name: string;
      schema: Record<string, unknown>;
      description?: string;
      strict?: boolean | null;
    };

export type ResponseStatus = 'completed' | 'incomplete' | 'failed' | 'cancelled' | 'queued' | 'in_progress';

export type ResponsesOutputContent =
  | { type: 'output_text'; text: string; annotations: unknown[]; logprobs: unknown[] }
  | { type: 'refusal'; refusal: string };

export interface ResponsesOutputMessage {
  type: 'message';
  id: string;
  status: 'completed' | 'incomplete' | 'in_progress';
  role: 'assistant';
  content: ResponsesOutputContent[];
}

export interface ResponsesOutputFunctionCall {
  type: 'function_call';
  id: string;
  call_id: string;
  name: string;
  arguments: string;
  status: 'completed' | 'incomplete' | 'in_progress';
}

export type ResponsesOutputItem = ResponsesOutputMessage | ResponsesOutputFunctionCall;

export interface ResponsesUsage {
  input_tokens: number;
  input_tokens_details: { cached_tokens: number };
  output_tokens: number;
  output_tokens_details: { reasoning_tokens: number };
  total_tokens: number;
}

/**
 * The request fields a `response` object repeats, as the caller sent them with OpenAI's defaults filled in. The api
 * works them out once; the worker spreads them into every response object it makes (answer, stream events).
 */
export interface ResponsesEcho {
  instructions: string | null;
  max_output_tokens: number | null;
  metadata: Record<string, string>;
  parallel_tool_calls: boolean;
  previous_response_id: string | null;
  reasoning: { effort: string | null; summary: string | null };
  store: boolean;
  temperature: number | null;
  text: { format: ResponsesTextFormat; verbosity?: string | null };
  tool_choice: ResponsesToolChoice;
  tools: ResponsesFunctionTool[];
  top_p: number | null;
  truncation: 'disabled' | 'auto';
  user: string | null;
  safety_identifier: string | null;
  prompt_cache_key: string | null;
  service_tier: string | null;
}

/** The `response` object: OpenAI's fields, in OpenAI's order. */
export interface ResponseObject extends ResponsesEcho {
  id: string;
  object: 'response';
  created_at: number;
  status: ResponseStatus;
  background: boolean;
  error: { code: string; message: string } | null;
  incomplete_details: { reason: 'max_output_tokens' | 'content_filter' } | null;
  model: string;
  output: ResponsesOutputItem[];
  usage: ResponsesUsage | null;
}

/**
 * Ids of what a response is made of, derived from its task id (`task_<22>`), so a response id names its task and an
 * output item's id names its response (`item_reference`): `resp_<22>`, `msg_<22>_<output index>`,
 * `fc_<22>_<output index>`.
 */
export const RESPONSE_ID = /^resp_([0-9A-Za-z]{22})$/;
const ITEM_ID = /^(?:msg|fc)_([0-9A-Za-z]{22})_\d{1,4}$/;

export function responseIdOf(taskId: string): string {
  return `resp_${taskId.slice('task_'.length)}`;
}

export function outputItemId(taskId: string, kind: 'msg' | 'fc', outputIndex: number): string {
  return `${kind}_${taskId.slice('task_'.length)}_${outputIndex}`;
}

/** The task a response id or output item id belongs to, or null for an id the gateway did not make. */
export function taskIdOfResponse(responseId: string): string | null {
  const match = RESPONSE_ID.exec(responseId);
  return match ? `task_${match[1]}` : null;
}

export function taskIdOfItem(itemId: string): string | null {
  const match = ITEM_ID.exec(itemId);
  return match ? `task_${match[1]}` : null;
}

/** An input item as an upstream is sent it: item references already expanded into the items they name. */
export type UpstreamInputItem = Exclude<ResponsesInputItem, ResponsesItemReference>;

/**
 * A Responses request as an upstream that has the endpoint is sent it (catalog route `responses: true`): the
 * caller's fields as sent, less what the gateway keeps to itself. `store` is false, so the upstream keeps nothing;
 * `metadata` stays with the gateway's stored response; `previous_response_id` and item references name the gateway's
 * records, so what they stand for is expanded into `input`, and items go without the gateway's ids. `model` and
 * `stream` are the provider's to set. The other fields are the caller's, as the api's schema admitted them.
 */
export interface UpstreamResponsesRequest {
  input?: string | UpstreamInputItem[];
  store: false;
  [field: string]: unknown;
}
