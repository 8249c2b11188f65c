import { schemaProblem, strictSchemaProblem } from './json-schemas';
import {
  compatibleInvalid,
  invalid,
  isObject,
  missing,
  notOneOf,
  Refusal,
  shown,
  unknownParameter,
  wrongType,
} from './openai-errors';
import {
  ChatValueRule,
  OPENAI_CHAT_FIELDS,
  OPENAI_CHAT_RULES,
  OPENAI_CHAT_VALUES,
  OPENAI_REQUEST_FIELDS,
  OpenAiDialect,
} from './upstream-rules';

/**
 * The Chat Completions request check of the OpenAI fake: every rule of upstream-rules.ts (OPENAI_CHAT_*), in the
 * order OpenAI applies them, each refusal OpenAI's error body (compatible mode's for its dialect). What passes is a
 * ChatRequest, which openai-chat.ts answers.
 */

export interface ChatContentPart {
  type: string;
  text?: string;
  refusal?: string;
  [key: string]: unknown;
}

export interface ChatToolCall {
  id: string;
  type: 'function' | 'custom';
  function?: { name: string; arguments: string };
  custom?: { name: string; input: string };
}

export interface ChatMessage {
  role: string;
  content?: string | ChatContentPart[] | null;
  name?: string;
  tool_calls?: ChatToolCall[];
  tool_call_id?: string;
  function_call?: { name: string; arguments: string } | null;
}

export interface FunctionDefinition {
  name: string;
  description?: string;
  parameters?: Record<string, unknown>;
  strict?: boolean | null;
}

export type ChatTool =
  | { type: 'function'; function: FunctionDefinition }
  | { type: 'custom'; custom: { name: string; description?: string; format?: unknown } };

export type ChatToolChoice =
  | 'none'
  | 'auto'
  | 'required'
  | { type: 'function'; function: { name: string } }
  | { type: 'custom'; custom: { name: string } }
  | { type: 'allowed_tools'; allowed_tools: { mode: 'auto' | 'required'; tools: Record<string, unknown>[] } };

export type ChatResponseFormat =
  | { type: 'text' }
  | { type: 'json_object' }
  | {
      type: 'json_schema';
      json_schema: { name: string; description?: string; schema?: Record<string, unknown>; strict?: boolean | null };
    };

/** A request that met every rule: OpenAI's body, typed as far as the fake reads it. */
export interface ChatRequest {
  model: string;
  messages: ChatMessage[];
  n?: number | null;
  max_tokens?: number | null;
  max_completion_tokens?: number | null;
  stop?: string | string[] | null;
  logprobs?: boolean | null;
  top_logprobs?: number | null;
  tools?: ChatTool[];
  tool_choice?: ChatToolChoice;
  parallel_tool_calls?: boolean;
  response_format?: ChatResponseFormat;
  functions?: FunctionDefinition[];
  function_call?: 'none' | 'auto' | { name: string };
  service_tier?: string | null;
  stream?: boolean | null;
  stream_options?: { include_usage?: boolean } | null;
}

export function checkChat(body: Record<string, unknown>, dialect: OpenAiDialect): ChatRequest {
  try {
    return checkChatRules(body, dialect);
  } catch (error) {
    // Compatible mode words its refusals its own way; a rule both share keeps OpenAI's text after its prefix.
    if (dialect === 'compatible' && error instanceof Refusal && error.error.code !== 'invalid_parameter_error') {
      throw compatibleInvalid(error.error.message);
    }
    throw error;
  }
}

function checkChatRules(body: Record<string, unknown>, dialect: OpenAiDialect): ChatRequest {
  checkTopLevelFields(Object.keys(body), dialect);
  checkMessages(body.messages, dialect);
  for (const [field, rule] of Object.entries(OPENAI_CHAT_VALUES[dialect])) {
    if (body[field] !== undefined) checkValue(field, body[field], rule, dialect);
  }
  checkStop(body.stop);
  if (body.stream_options !== undefined && body.stream_options !== null) {
    checkStreamOptions(body.stream_options, body.stream === true);
  }
  if (body.logit_bias !== undefined && body.logit_bias !== null) checkLogitBias(body.logit_bias);
  if (body.metadata !== undefined && body.metadata !== null) checkMetadata(body.metadata);
  checkOutputModalities(body);
  for (const field of ['prediction', 'web_search_options', 'moderation', 'prompt_cache_options', 'search_options']) {
    if (body[field] !== undefined && body[field] !== null && !isObject(body[field])) {
      throw wrongType(field, 'an object', body[field]);
    }
  }
  const toolNames = checkTools(body.tools, dialect);
  checkToolChoice(body.tool_choice, toolNames, dialect);
  if (body.parallel_tool_calls !== undefined && toolNames === null) {
    throw invalid(
      "Invalid value for 'parallel_tool_calls': 'parallel_tool_calls' is only allowed when 'tools' are specified.",
      'parallel_tool_calls',
    );
  }
  checkFunctions(body.functions, body.function_call);
  checkResponseFormat(body.response_format, body.messages as ChatMessage[]);
  if (body.top_logprobs !== undefined && body.top_logprobs !== null && body.logprobs !== true) {
    throw invalid(
      "Invalid value for 'top_logprobs': 'logprobs' must be set to true when 'top_logprobs' is used.",
      'top_logprobs',
      'invalid_value',
    );
  }
  checkToolTurns(body.messages as ChatMessage[]);
  if (dialect === 'openai' && body.max_tokens != null && OPENAI_CHAT_RULES.reasoningModels.test(String(body.model))) {
    throw invalid(
      "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.",
      'max_tokens',
      'unsupported_parameter',
    );
  }
  if (
    dialect === 'compatible' &&
    toolNames !== null &&
    Number(body.n ?? 1) > OPENAI_CHAT_RULES.compatibleMaxNWithTools
  ) {
    throw compatibleInvalid(`n should be ${OPENAI_CHAT_RULES.compatibleMaxNWithTools} when tools are given`);
  }
  return body as unknown as ChatRequest;
}

/** Fields outside OPENAI_CHAT_FIELDS, named as the dialect names them. */
function checkTopLevelFields(names: string[], dialect: OpenAiDialect): void {
  const allowed: readonly string[] = OPENAI_CHAT_FIELDS[dialect];
  const unknown = names.filter((name) => !allowed.includes(name));
  if (unknown.length === 0) return;
  if (dialect === 'compatible') {
    throw compatibleInvalid(`Parameter ${unknown[0]} is not supported in compatible mode`);
  }
  throw invalid(
    unknown.length === 1
      ? `Unrecognized request argument supplied: ${unknown[0]}`
      : `Unrecognized request arguments supplied: ${unknown.join(', ')}`,
  );
}

export function checkValue(field: string, value: unknown, rule: ChatValueRule, dialect: OpenAiDialect): void {
  if (value === null && rule.nullable) return;
  switch (rule.kind) {
    case 'boolean':
      if (typeof value !== 'boolean') throw wrongType(field, 'a boolean', value);
      return;
    case 'string':
      if (typeof value !== 'string') throw wrongType(field, 'a string', value);
      if (rule.maxLength !== undefined && value.length > rule.maxLength) {
        throw invalid(
          `Invalid '${field}': string too long. Expected a string with maximum length ${rule.maxLength}, but got a string with length ${value.length} instead.`,
          field,
          'string_above_max_length',
        );
      }
      return;
    case 'enum':
      if (typeof value !== 'string') throw wrongType(field, 'a string', value);
      if (!rule.values.includes(value)) throw notOneOf(field, value, rule.values);
      return;
    case 'integer':
      if (!Number.isInteger(value)) throw wrongType(field, 'an integer', value);
      return checkBounds(field, value as number, rule.min, rule.max, 'integer', dialect);
    case 'decimal':
      if (typeof value !== 'number') throw wrongType(field, 'a decimal', value);
      if (rule.interval) checkInterval(field, value, rule.interval, dialect);
  }
}

function checkBounds(
  field: string,
  value: number,
  min: number | undefined,
  max: number | undefined,
  kind: 'integer' | 'decimal',
  dialect: OpenAiDialect,
): void {
  const tooLow = min !== undefined && value < min;
  const tooHigh = max !== undefined && value > max;
  if (!tooLow && !tooHigh) return;
  if (dialect === 'compatible') throw compatibleInvalid(`Range of ${field} should be [${min ?? ''}, ${max ?? ''}]`);
  throw invalid(
    tooHigh
      ? `Invalid '${field}': ${kind} above maximum value. Expected a value <= ${max}, but got ${value} instead.`
      : `Invalid '${field}': ${kind} below minimum value. Expected a value >= ${min}, but got ${value} instead.`,
    field,
    `${kind}_${tooHigh ? 'above_max' : 'below_min'}_value`,
  );
}

/** A decimal interval as the docs write it: OpenAI words a value outside it its way, compatible mode its own. */
function checkInterval(field: string, value: number, interval: string, dialect: OpenAiDialect): void {
  const [, open, low, high, close] = /^([[(])(-?[\d.]+), (-?[\d.]+)([\])])$/.exec(interval)!;
  const [min, max] = [Number(low), Number(high)];
  const tooLow = open === '[' ? value < min : value <= min;
  const tooHigh = close === ']' ? value > max : value >= max;
  if (!tooLow && !tooHigh) return;
  if (dialect === 'compatible') {
    throw compatibleInvalid(`Range of ${field} should be ${open}${min.toFixed(1)}, ${max.toFixed(1)}${close}`);
  }
  throw invalid(
    tooHigh
      ? `Invalid '${field}': decimal above maximum value. Expected a value <= ${max}, but got ${value} instead.`
      : `Invalid '${field}': decimal below minimum value. Expected a value >= ${min}, but got ${value} instead.`,
    field,
    tooHigh ? 'decimal_above_max_value' : 'decimal_below_min_value',
  );
}

// --- messages

function checkMessages(messages: unknown, dialect: OpenAiDialect): void {
  if (messages === undefined) throw missing('messages');
  if (!Array.isArray(messages)) throw wrongType('messages', 'an array', messages);
  if (messages.length === 0) {
    throw invalid(
      "Invalid 'messages': empty array. Expected an array with minimum length 1, but got an empty array instead.",
      'messages',
      'empty_array',
    );
  }
  messages.forEach((message: unknown, i) => checkMessage(message, `messages[${i}]`, dialect));
}

function checkMessage(message: unknown, at: string, dialect: OpenAiDialect): void {
  if (!isObject(message)) throw wrongType(at, 'an object', message);
  if (message.role === undefined) throw missing(`${at}.role`);
  const roles: readonly unknown[] = OPENAI_CHAT_RULES.roles[dialect];
  if (!roles.includes(message.role)) throw notOneOf(`${at}.role`, message.role, OPENAI_CHAT_RULES.roles[dialect]);
  const role = message.role as string;
  const extra = Object.keys(message).find((key) => !OPENAI_CHAT_RULES.messageFields[dialect][role].includes(key));
  if (extra) throw unknownParameter(`${at}.${extra}`);
  const { content } = message;
  // An assistant turn may carry tool calls instead of content; every other turn has content.
  if (role === 'assistant') {
    if ((content === undefined || content === null) && !message.tool_calls && !message.function_call) {
      throw invalid(`Invalid value for '${at}.content': expected a string, got null.`, `${at}.content`);
    }
  } else if (content === undefined) {
    throw missing(`${at}.content`);
  }
  if (content !== undefined && content !== null) checkContent(content, `${at}.content`, role, dialect);
  for (const field of ['name', 'tool_call_id', 'refusal'] as const) {
    if (message[field] !== undefined && message[field] !== null && typeof message[field] !== 'string') {
      throw wrongType(`${at}.${field}`, 'a string', message[field]);
    }
  }
  if (role === 'tool' && message.tool_call_id === undefined) throw missing(`${at}.tool_call_id`);
  if (role === 'function' && message.name === undefined) throw missing(`${at}.name`);
  if (message.tool_calls !== undefined) checkToolCalls(message.tool_calls, `${at}.tool_calls`, dialect);
}

function checkContent(content: unknown, at: string, role: string, dialect: OpenAiDialect): void {
  if (typeof content === 'string') return;
  if (!Array.isArray(content)) throw wrongType(at, 'one of a string or array of objects', content);
  if (content.length === 0) {
    throw invalid(
      `Invalid '${at}': empty array. Expected an array with minimum length 1, but got an empty array instead.`,
      at,
      'empty_array',
    );
  }
  const types = OPENAI_CHAT_RULES.contentParts[dialect][role];
  content.forEach((part: unknown, i) => {
    const where = `${at}[${i}]`;
    if (!isObject(part)) throw wrongType(where, 'an object', part);
    if (part.type === undefined) throw missing(`${where}.type`);
    if (!types.includes(part.type as string)) throw notOneOf(`${where}.type`, part.type, types);
    const fields = OPENAI_CHAT_RULES.partFields[part.type as string];
    const extra = Object.keys(part).find((key) => !fields.includes(key));
    if (extra) throw unknownParameter(`${where}.${extra}`);
    checkPart(part, where);
  });
}

/** The payload of each part type: present, and of its documented shape. */
function checkPart(part: Record<string, unknown>, at: string): void {
  const type = part.type as string;
  if (type === 'text' || type === 'refusal') {
    if (part[type] === undefined) throw missing(`${at}.${type}`);
    if (typeof part[type] !== 'string') throw wrongType(`${at}.${type}`, 'a string', part[type]);
    return;
  }
  const payload = part[type];
  if (payload === undefined) throw missing(`${at}.${type}`);
  if (type === 'video') return; // DashScope: a list of frame URLs
  if (type === 'video_url' || type === 'image_url') {
    if (!isObject(payload)) throw wrongType(`${at}.${type}`, 'an object', payload);
    if (typeof payload.url !== 'string') throw missing(`${at}.${type}.url`);
    if (payload.detail !== undefined && !OPENAI_CHAT_RULES.imageDetails.includes(payload.detail as 'auto')) {
      throw notOneOf(`${at}.${type}.detail`, payload.detail, OPENAI_CHAT_RULES.imageDetails);
    }
    return;
  }
  if (!isObject(payload)) throw wrongType(`${at}.${type}`, 'an object', payload);
  if (type === 'input_audio') {
    if (typeof payload.data !== 'string') throw missing(`${at}.input_audio.data`);
    if (!OPENAI_CHAT_RULES.inputAudioFormats.includes(payload.format as 'wav')) {
      throw notOneOf(`${at}.input_audio.format`, payload.format, OPENAI_CHAT_RULES.inputAudioFormats);
    }
  }
  if (type === 'file' && payload.file_data === undefined && payload.file_id === undefined) {
    throw invalid(`Invalid '${at}.file': expected one of 'file_data' or 'file_id'.`, `${at}.file`);
  }
}

function checkToolCalls(calls: unknown, at: string, dialect: OpenAiDialect): void {
  if (!Array.isArray(calls)) throw wrongType(at, 'an array', calls);
  calls.forEach((call: unknown, i) => {
    const where = `${at}[${i}]`;
    if (!isObject(call)) throw wrongType(where, 'an object', call);
    if (typeof call.id !== 'string') throw missing(`${where}.id`);
    const types = OPENAI_CHAT_RULES.toolTypes[dialect];
    if (!types.includes(call.type as 'function')) throw notOneOf(`${where}.type`, call.type, types);
    const body = call[call.type as string];
    if (!isObject(body)) throw missing(`${where}.${call.type as string}`);
    if (typeof body.name !== 'string') throw missing(`${where}.${call.type as string}.name`);
    const argumentsField = call.type === 'function' ? 'arguments' : 'input';
    if (typeof body[argumentsField] !== 'string') {
      throw wrongType(`${where}.${call.type as string}.${argumentsField}`, 'a string', body[argumentsField]);
    }
  });
}

/**
 * A `tool` message answers a call of the assistant turn before it, and an assistant turn with tool calls is
 * followed by an answer to each (OPENAI_DOCS.functionCalling).
 */
function checkToolTurns(messages: ChatMessage[]): void {
  messages.forEach((message, i) => {
    if (message.role !== 'tool') return;
    let j = i - 1;
    while (j >= 0 && messages[j].role === 'tool') j--;
    const calls = j >= 0 ? messages[j].tool_calls : undefined;
    if (messages[j]?.role !== 'assistant' || !calls?.length) {
      throw invalid(
        "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.",
        `messages.[${i}].role`,
      );
    }
    if (!calls.some((call) => call.id === message.tool_call_id)) {
      throw invalid(
        `Invalid parameter: 'tool_call_id' of '${message.tool_call_id}' not found in 'tool_calls' of previous message.`,
        `messages.[${i}].tool_call_id`,
      );
    }
  });
  messages.forEach((message, i) => {
    if (message.role !== 'assistant' || !message.tool_calls?.length) return;
    const answered = new Set<string>();
    for (let k = i + 1; k < messages.length && messages[k].role === 'tool'; k++)
      answered.add(messages[k].tool_call_id!);
    const unanswered = message.tool_calls.map((call) => call.id).filter((id) => !answered.has(id));
    if (unanswered.length > 0) {
      throw invalid(
        `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${unanswered.join(', ')}`,
        `messages.[${i}].role`,
      );
    }
  });
}

// --- sampling and output options

function checkStop(stop: unknown): void {
  if (stop === undefined || stop === null || typeof stop === 'string') return;
  if (!Array.isArray(stop) || !stop.every((item) => typeof item === 'string')) {
    throw wrongType('stop', 'one of a string or array of strings', stop);
  }
  if (stop.length > OPENAI_CHAT_RULES.maxStop) {
    throw invalid(
      `Invalid 'stop': array too long. Expected an array with maximum length ${OPENAI_CHAT_RULES.maxStop}, but got an array with length ${stop.length} instead.`,
      'stop',
      'array_above_max_length',
    );
  }
}

function checkStreamOptions(options: unknown, streaming: boolean): void {
  if (!streaming) {
    throw invalid(
      "The 'stream_options' parameter is only allowed when 'stream' is enabled.",
      'stream_options',
      'invalid_value',
    );
  }
  if (!isObject(options)) throw wrongType('stream_options', 'an object', options);
  const extra = Object.keys(options).find(
    (key) => !(OPENAI_REQUEST_FIELDS.streamOptions as readonly string[]).includes(key),
  );
  if (extra) throw unknownParameter(`stream_options.${extra}`);
  for (const [key, value] of Object.entries(options)) {
    if (typeof value !== 'boolean') throw wrongType(`stream_options.${key}`, 'a boolean', value);
  }
}

/** Token ids (non-negative integers, as strings) to a bias in [-100, 100]. */
function checkLogitBias(bias: unknown): void {
  if (!isObject(bias)) throw wrongType('logit_bias', 'an object', bias);
  const { min, max } = OPENAI_CHAT_RULES.logitBias;
  for (const [key, value] of Object.entries(bias)) {
    if (!/^\d+$/.test(key)) {
      throw invalid(
        `Invalid key in 'logit_bias': ${key}. You should only be submitting non-negative integers.`,
        'logit_bias',
        'invalid_value',
      );
    }
    if (typeof value !== 'number') throw wrongType(`logit_bias.${key}`, 'a number', value);
    if (value < min || value > max) {
      throw invalid(
        `Invalid value for 'logit_bias.${key}': ${value}. Values must be between ${min} and ${max}.`,
        'logit_bias',
        'invalid_value',
      );
    }
  }
}

export function checkMetadata(metadata: unknown): void {
  if (!isObject(metadata)) throw wrongType('metadata', 'an object', metadata);
  const { maxPairs, maxKeyLength, maxValueLength } = OPENAI_CHAT_RULES.metadata;
  const entries = Object.entries(metadata);
  if (entries.length > maxPairs) {
    throw invalid(
      `Invalid 'metadata': too many properties. Expected an object with at most ${maxPairs} properties, but got an object with ${entries.length} properties instead.`,
      'metadata',
      'object_above_max_properties',
    );
  }
  for (const [key, value] of entries) {
    if (typeof value !== 'string') throw wrongType(`metadata.${key}`, 'a string', value);
    if (key.length > maxKeyLength || value.length > maxValueLength) {
      throw invalid(
        `Invalid 'metadata.${key}': keys are at most ${maxKeyLength} characters and values at most ${maxValueLength}.`,
        `metadata.${key}`,
        'string_above_max_length',
      );
    }
  }
}

/** `modalities` lists text and audio; audio output needs its `audio` settings. */
function checkOutputModalities(body: Record<string, unknown>): void {
  const { modalities, audio } = body;
  if (modalities !== undefined && modalities !== null) {
    if (!Array.isArray(modalities)) throw wrongType('modalities', 'an array', modalities);
    modalities.forEach((modality: unknown, i) => {
      if (!OPENAI_CHAT_RULES.modalities.includes(modality as 'text')) {
        throw notOneOf(`modalities[${i}]`, modality, OPENAI_CHAT_RULES.modalities);
      }
    });
    if (modalities.includes('audio') && (audio === undefined || audio === null)) {
      throw invalid(
        "Invalid value for 'audio': 'audio' is required when 'modalities' includes 'audio'.",
        'audio',
        'invalid_value',
      );
    }
  }
  if (audio !== undefined && audio !== null && !isObject(audio)) throw wrongType('audio', 'an object', audio);
}

// --- tools and formats

/** The names of the tools, or null when the request has none. */
function checkTools(tools: unknown, dialect: OpenAiDialect): string[] | null {
  if (tools === undefined) return null;
  if (!Array.isArray(tools)) throw wrongType('tools', 'an array', tools);
  if (tools.length > OPENAI_CHAT_RULES.maxTools) {
    throw invalid(
      `Invalid 'tools': array too long. Expected an array with maximum length ${OPENAI_CHAT_RULES.maxTools}, but got an array with length ${tools.length} instead.`,
      'tools',
      'array_above_max_length',
    );
  }
  return tools.map((tool: unknown, i) => {
    const at = `tools[${i}]`;
    if (!isObject(tool)) throw wrongType(at, 'an object', tool);
    if (tool.type === undefined) throw missing(`${at}.type`);
    const types = OPENAI_CHAT_RULES.toolTypes[dialect];
    if (!types.includes(tool.type as 'function')) throw notOneOf(`${at}.type`, tool.type, types);
    const extra = Object.keys(tool).find((key) => key !== 'type' && key !== tool.type);
    if (extra) throw unknownParameter(`${at}.${extra}`);
    const definition = tool[tool.type as string];
    if (definition === undefined) throw missing(`${at}.${tool.type as string}`);
    if (!isObject(definition)) throw wrongType(`${at}.${tool.type as string}`, 'an object', definition);
    if (tool.type === 'function') checkFunctionDefinition(definition, `${at}.function`, 'function');
    else checkName(definition.name, `${at}.custom.name`);
    return definition.name as string;
  });
}

/** A function tool, or a legacy `functions` entry: a valid name, a JSON Schema, strict rules when strict. */
export function checkFunctionDefinition(
  definition: Record<string, unknown>,
  at: string,
  kind: 'function' | 'legacy',
): void {
  const allowed = ['name', 'description', 'parameters', ...(kind === 'function' ? ['strict'] : [])];
  const extra = Object.keys(definition).find((key) => !allowed.includes(key));
  if (extra) throw unknownParameter(`${at}.${extra}`);
  checkName(definition.name, `${at}.name`);
  if (definition.description !== undefined && typeof definition.description !== 'string') {
    throw wrongType(`${at}.description`, 'a string', definition.description);
  }
  if (definition.strict !== undefined && definition.strict !== null && typeof definition.strict !== 'boolean') {
    throw wrongType(`${at}.strict`, 'a boolean', definition.strict);
  }
  const { parameters } = definition;
  if (parameters === undefined) return;
  if (!isObject(parameters)) throw wrongType(`${at}.parameters`, 'an object', parameters);
  const problem = schemaProblem(parameters) ?? (definition.strict === true ? strictSchemaProblem(parameters) : null);
  if (problem) {
    throw invalid(
      `Invalid schema for function '${definition.name as string}': ${problem}`,
      `${at}.parameters`,
      'invalid_function_parameters',
    );
  }
}

export function checkName(name: unknown, at: string): void {
  if (name === undefined) throw missing(at);
  if (typeof name !== 'string') throw wrongType(at, 'a string', name);
  if (name.length > OPENAI_CHAT_RULES.nameMaxLength) {
    throw invalid(
      `Invalid '${at}': string too long. Expected a string with maximum length ${OPENAI_CHAT_RULES.nameMaxLength}, but got a string with length ${name.length} instead.`,
      at,
      'string_above_max_length',
    );
  }
  if (!OPENAI_CHAT_RULES.namePattern.test(name)) {
    throw invalid(
      `Invalid '${at}': string does not match pattern. Expected a string that matches the pattern '${OPENAI_CHAT_RULES.namePattern.source}'.`,
      at,
      'invalid_value',
    );
  }
}

/** `tool_choice` needs tools, and a tool it names must be one of them. */
function checkToolChoice(choice: unknown, toolNames: string[] | null, dialect: OpenAiDialect): void {
  if (choice === undefined) return;
  if (toolNames === null) {
    throw invalid(
      "Invalid value for 'tool_choice': 'tool_choice' is only allowed when 'tools' are specified.",
      'tool_choice',
    );
  }
  const choices = OPENAI_CHAT_RULES.toolChoices[dialect];
  if (typeof choice === 'string') {
    if (!choices.includes(choice as 'auto')) throw notOneOf('tool_choice', choice, choices);
    return;
  }
  if (!isObject(choice)) throw wrongType('tool_choice', 'one of a string or object', choice);
  const types = OPENAI_CHAT_RULES.toolChoiceTypes[dialect];
  if (!types.includes(choice.type as 'function')) throw notOneOf('tool_choice.type', choice.type, types);
  if (choice.type === 'allowed_tools') return checkAllowedTools(choice.allowed_tools, toolNames);
  const named = choice[choice.type as string];
  if (!isObject(named) || typeof named.name !== 'string') throw missing(`tool_choice.${choice.type as string}.name`);
  if (!toolNames.includes(named.name)) {
    throw invalid(
      `Invalid value for 'tool_choice': function '${named.name}' is not one of the tools in 'tools'.`,
      'tool_choice',
      'invalid_value',
    );
  }
}

function checkAllowedTools(allowed: unknown, toolNames: string[]): void {
  if (!isObject(allowed)) throw missing('tool_choice.allowed_tools');
  if (!['auto', 'required'].includes(allowed.mode as string)) {
    throw notOneOf('tool_choice.allowed_tools.mode', allowed.mode, ['auto', 'required']);
  }
  if (!Array.isArray(allowed.tools)) throw wrongType('tool_choice.allowed_tools.tools', 'an array', allowed.tools);
  allowed.tools.forEach((tool: unknown, i) => {
    const name = isObject(tool) ? ((tool.function ?? tool.custom) as { name?: string } | undefined)?.name : undefined;
    if (!name || !toolNames.includes(name)) {
      throw invalid(
        `Invalid value for 'tool_choice.allowed_tools.tools[${i}]': not one of the tools in 'tools'.`,
        `tool_choice.allowed_tools.tools[${i}]`,
        'invalid_value',
      );
    }
  });
}

/** The deprecated `functions` / `function_call`, checked like tools. */
function checkFunctions(functions: unknown, functionCall: unknown): void {
  if (functions === undefined) {
    if (functionCall !== undefined) {
      throw invalid(
        "Invalid value for 'function_call': 'function_call' is only allowed when 'functions' are specified.",
        'function_call',
      );
    }
    return;
  }
  if (!Array.isArray(functions)) throw wrongType('functions', 'an array', functions);
  functions.forEach((definition: unknown, i) => {
    if (!isObject(definition)) throw wrongType(`functions[${i}]`, 'an object', definition);
    checkFunctionDefinition(definition, `functions[${i}]`, 'legacy');
  });
  if (functionCall === undefined || functionCall === 'none' || functionCall === 'auto') return;
  const name = isObject(functionCall) ? functionCall.name : undefined;
  if (!functions.some((definition: { name?: unknown }) => definition.name === name)) {
    throw invalid(
      `Invalid value for 'function_call': function '${shown(name)}' is not one of the functions in 'functions'.`,
      'function_call',
      'invalid_value',
    );
  }
}

function checkResponseFormat(format: unknown, messages: ChatMessage[]): void {
  if (format === undefined) return;
  if (!isObject(format)) throw wrongType('response_format', 'an object', format);
  if (format.type === undefined) throw missing('response_format.type');
  if (!OPENAI_CHAT_RULES.responseFormats.includes(format.type as 'text')) {
    throw notOneOf('response_format.type', format.type, OPENAI_CHAT_RULES.responseFormats);
  }
  const extra = Object.keys(format).find(
    (key) => key !== 'type' && !(format.type === 'json_schema' && key === 'json_schema'),
  );
  if (extra) throw unknownParameter(`response_format.${extra}`);
  if (format.type === 'json_object' && !messages.some((message) => OPENAI_CHAT_RULES.jsonWord.test(textOf(message)))) {
    throw invalid(OPENAI_CHAT_RULES.jsonWordMessage, 'messages');
  }
  if (format.type !== 'json_schema') return;
  const spec = format.json_schema;
  if (spec === undefined) throw missing('response_format.json_schema');
  if (!isObject(spec)) throw wrongType('response_format.json_schema', 'an object', spec);
  const extraSpec = Object.keys(spec).find((key) => !['name', 'description', 'schema', 'strict'].includes(key));
  if (extraSpec) throw unknownParameter(`response_format.json_schema.${extraSpec}`);
  checkName(spec.name, 'response_format.json_schema.name');
  if (spec.schema === undefined) return;
  if (!isObject(spec.schema)) throw wrongType('response_format.json_schema.schema', 'an object', spec.schema);
  const label = `Invalid schema for response_format '${spec.name as string}'`;
  const problem = schemaProblem(spec.schema);
  if (problem) throw invalid(`${label}: ${problem}`, 'response_format', 'invalid_json_schema');
  if (spec.strict !== true) return;
  if (spec.schema.type !== 'object') {
    throw invalid(
      `${label}: schema must be a JSON Schema of 'type: "object"', got 'type: "${shown(spec.schema.type)}"'.`,
      'response_format',
      'invalid_json_schema',
    );
  }
  const strictProblem = strictSchemaProblem(spec.schema);
  if (strictProblem) throw invalid(`${label}: ${strictProblem}`, 'response_format', 'invalid_json_schema');
}

/** A message's words: its string content, or the text of its parts. */
export function textOf(message: ChatMessage): string {
  const { content } = message;
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((part) => part.text ?? part.refusal ?? '').join('');
}
