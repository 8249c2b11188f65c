import { schemaProblem, strictSchemaProblem } from './json-schemas';
import { checkFunctionDefinition, checkMetadata, checkName, checkValue } from './openai-chat-request';
import { invalid, isObject, missing, notOneOf, Refusal, unknownParameter, wrongType } from './openai-errors';
import {
  OPENAI_CHAT_RULES,
  OPENAI_RESPONSES_FIELDS,
  OPENAI_RESPONSES_NOT_FOUND,
  OPENAI_RESPONSES_NOT_IMPLEMENTED,
  OPENAI_RESPONSES_RULES,
  OPENAI_RESPONSES_VALUES,
} from './upstream-rules';

/**
 * The Responses request check of the OpenAI fake (POST /v1/responses): every rule of upstream-rules.ts
 * (OPENAI_RESPONSES_*), each refusal OpenAI's error body. The fake keeps no responses, so what names a kept one (a
 * `previous_response_id`, an `item_reference`, an item's `id`) is refused as OpenAI refuses one it does not have.
 * What passes is a ResponsesRequest, which openai-responses.ts answers.
 */

export interface ResponsesPart {
  type: string;
  text?: string;
  refusal?: string;
  [key: string]: unknown;
}

export type ResponsesItem =
  | { type?: 'message'; role: string; content: string | ResponsesPart[]; id?: string }
  | { type: 'function_call'; call_id: string; name: string; arguments: string; id?: string }
  | { type: 'function_call_output'; call_id: string; output: string | ResponsesPart[]; id?: string | null }
  | { type: 'item_reference'; id: string };

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

/** A request that met every rule, typed as far as the fake reads it. */
export interface ResponsesRequest {
  model: string;
  input?: string | ResponsesItem[];
  instructions?: string | null;
  max_output_tokens?: number | null;
  tools?: ResponsesFunctionTool[];
  tool_choice?: ResponsesToolChoice;
  parallel_tool_calls?: boolean | null;
  text?: { format?: ResponsesTextFormat; verbosity?: string | null };
  store?: boolean | null;
  stream?: boolean | null;
  stream_options?: { include_obfuscation?: boolean } | null;
  [field: string]: unknown;
}

export function checkResponses(body: Record<string, unknown>): ResponsesRequest {
  const unknown = Object.keys(body).find((name) => !(OPENAI_RESPONSES_FIELDS as readonly string[]).includes(name));
  if (unknown) throw unknownParameter(unknown);
  const unimplemented = OPENAI_RESPONSES_NOT_IMPLEMENTED.find(
    (field) => body[field] !== undefined && body[field] !== null,
  );
  if (unimplemented || body.background === true) {
    throw new Error(`${unimplemented ?? 'background'} is documented but not implemented by the fake`);
  }
  for (const [field, rule] of Object.entries(OPENAI_RESPONSES_VALUES)) {
    if (body[field] !== undefined) checkValue(field, body[field], rule, 'openai');
  }
  if (body.metadata !== undefined && body.metadata !== null) checkMetadata(body.metadata);
  if (body.stream_options !== undefined && body.stream_options !== null) {
    checkStreamOptions(body.stream_options, body.stream === true);
  }
  if (body.include !== undefined && body.include !== null) checkStrings('include', body.include);
  checkReasoning(body.reasoning, String(body.model));
  const items = checkInput(body.input);
  const toolNames = checkTools(body.tools);
  checkToolChoice(body.tool_choice, toolNames);
  checkText(body.text, body.instructions, items ?? (body.input as string | undefined));
  if (items) checkCallOutputs(items);
  // Lookups come after the shape: the fake keeps nothing, so every id names something it does not have.
  const store = body.store !== false;
  if (typeof body.previous_response_id === 'string') {
    throw new Refusal(400, {
      message: OPENAI_RESPONSES_NOT_FOUND.previousResponse(body.previous_response_id),
      type: 'invalid_request_error',
      param: 'previous_response_id',
      code: 'previous_response_not_found',
    });
  }
  const kept = items?.find((item) => typeof item.id === 'string');
  if (kept) {
    throw new Refusal(404, {
      message: OPENAI_RESPONSES_NOT_FOUND.item(kept.id as string, store),
      type: 'invalid_request_error',
      param: 'input',
      code: null,
    });
  }
  return body as ResponsesRequest;
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
    (key) => !(OPENAI_RESPONSES_RULES.streamOptions as readonly string[]).includes(key),
  );
  if (extra) throw unknownParameter(`stream_options.${extra}`);
  for (const [key, value] of Object.entries(options)) {
    if (typeof value !== 'boolean') throw wrongType(`stream_options.${key}`, 'a boolean', value);
  }
}

function checkStrings(field: string, value: unknown): void {
  if (!Array.isArray(value)) throw wrongType(field, 'an array', value);
  value.forEach((item: unknown, i) => {
    if (typeof item !== 'string') throw wrongType(`${field}[${i}]`, 'a string', item);
  });
}

/** `reasoning` settings, which only reasoning models take. */
function checkReasoning(reasoning: unknown, model: string): void {
  if (reasoning === undefined || reasoning === null) return;
  if (!isObject(reasoning)) throw wrongType('reasoning', 'an object', reasoning);
  const extra = Object.keys(reasoning).find(
    (key) => !(OPENAI_RESPONSES_RULES.reasoningFields as readonly string[]).includes(key),
  );
  if (extra) throw unknownParameter(`reasoning.${extra}`);
  const effort = reasoning.effort;
  if (effort === undefined || effort === null) return;
  checkValue(
    'reasoning.effort',
    effort,
    { kind: 'enum', values: ['none', 'minimal', 'low', 'medium', 'high', 'xhigh'] },
    'openai',
  );
  if (!OPENAI_CHAT_RULES.reasoningModels.test(model)) {
    throw invalid(
      "Unsupported parameter: 'reasoning.effort' is not supported with this model.",
      'reasoning.effort',
      'unsupported_parameter',
    );
  }
}

// --- input

/** The items of an array input; undefined for a string or no input. */
function checkInput(input: unknown): ResponsesItem[] | undefined {
  if (input === undefined || typeof input === 'string') return undefined;
  if (!Array.isArray(input)) throw wrongType('input', 'one of a string or array of objects', input);
  input.forEach((item: unknown, i) => checkItem(item, `input[${i}]`));
  return input as ResponsesItem[];
}

function checkItem(item: unknown, at: string): void {
  if (!isObject(item)) throw wrongType(at, 'an object', item);
  const type = item.type ?? (item.role !== undefined ? 'message' : undefined);
  if (type === undefined) throw missing(`${at}.type`);
  if ((OPENAI_RESPONSES_RULES.otherItemTypes as readonly unknown[]).includes(type)) {
    throw new Error(`input items of type ${JSON.stringify(type)} are documented but not implemented by the fake`);
  }
  const types: readonly string[] = OPENAI_RESPONSES_RULES.itemTypes;
  if (!types.includes(type as string)) {
    throw notOneOf(`${at}.type`, type, [...types, ...OPENAI_RESPONSES_RULES.otherItemTypes]);
  }
  const extra = Object.keys(item).find((key) => !OPENAI_RESPONSES_RULES.itemFields[type as string].includes(key));
  if (extra) throw unknownParameter(`${at}.${extra}`);
  if (item.id !== undefined && item.id !== null && typeof item.id !== 'string')
    throw wrongType(`${at}.id`, 'a string', item.id);
  if (
    item.status !== undefined &&
    item.status !== null &&
    !(OPENAI_RESPONSES_RULES.itemStatuses as readonly unknown[]).includes(item.status)
  ) {
    throw notOneOf(`${at}.status`, item.status, OPENAI_RESPONSES_RULES.itemStatuses);
  }
  switch (type) {
    case 'message':
      return checkMessage(item, at);
    case 'function_call':
      for (const field of ['call_id', 'name', 'arguments']) {
        if (item[field] === undefined) throw missing(`${at}.${field}`);
        if (typeof item[field] !== 'string') throw wrongType(`${at}.${field}`, 'a string', item[field]);
      }
      return;
    case 'function_call_output':
      if (item.call_id === undefined) throw missing(`${at}.call_id`);
      if (typeof item.call_id !== 'string') throw wrongType(`${at}.call_id`, 'a string', item.call_id);
      if (item.output === undefined) throw missing(`${at}.output`);
      return checkContent(item.output, `${at}.output`, OPENAI_RESPONSES_RULES.contentParts.user);
    default:
      if (item.id === undefined) throw missing(`${at}.id`);
  }
}

function checkMessage(item: Record<string, unknown>, at: string): void {
  if (item.role === undefined) throw missing(`${at}.role`);
  if (!(OPENAI_RESPONSES_RULES.roles as readonly unknown[]).includes(item.role)) {
    throw notOneOf(`${at}.role`, item.role, OPENAI_RESPONSES_RULES.roles);
  }
  if (item.content === undefined) throw missing(`${at}.content`);
  checkContent(item.content, `${at}.content`, OPENAI_RESPONSES_RULES.contentParts[item.role as string]);
}

function checkContent(content: unknown, at: string, types: readonly string[]): void {
  if (typeof content === 'string') return;
  if (!Array.isArray(content)) throw wrongType(at, 'one of a string or array of objects', content);
  content.forEach((part: unknown, i) => {
    const where = `${at}[${i}]`;
    if (!isObject(part)) throw wrongType(where, 'an object', part);
    if (part.type === undefined) throw missing(`${where}.type`);
    if (!types.includes(part.type as string)) throw notOneOf(`${where}.type`, part.type, types);
    const extra = Object.keys(part).find(
      (key) => !OPENAI_RESPONSES_RULES.partFields[part.type as string].includes(key),
    );
    if (extra) throw unknownParameter(`${where}.${extra}`);
    const text =
      part.type === 'refusal'
        ? 'refusal'
        : part.type === 'input_text' || part.type === 'output_text'
          ? 'text'
          : undefined;
    if (text && typeof part[text] !== 'string') {
      if (part[text] === undefined) throw missing(`${where}.${text}`);
      throw wrongType(`${where}.${text}`, 'a string', part[text]);
    }
    if (part.type === 'input_image' && part.image_url == null && part.file_id == null) {
      throw invalid(`Invalid '${where}': expected one of 'image_url' or 'file_id'.`, where);
    }
  });
}

/** A function call's output answers a function call earlier in the input. */
function checkCallOutputs(items: ResponsesItem[]): void {
  items.forEach((item, i) => {
    if (item.type !== 'function_call_output') return;
    const answered = items
      .slice(0, i)
      .some((earlier) => earlier.type === 'function_call' && earlier.call_id === item.call_id);
    if (!answered) throw invalid(OPENAI_RESPONSES_NOT_FOUND.functionCallOutput(item.call_id), 'input');
  });
}

// --- tools and formats

/** The names of the tools, or null when the request has none. */
function checkTools(tools: unknown): string[] | null {
  if (tools === undefined) return null;
  if (!Array.isArray(tools)) throw wrongType('tools', 'an array', tools);
  if (tools.length > OPENAI_RESPONSES_RULES.maxTools) {
    throw invalid(
      `Invalid 'tools': array too long. Expected an array with maximum length ${OPENAI_RESPONSES_RULES.maxTools}, but got an array with length ${tools.length} instead.`,
      'tools',
      'array_above_max_length',
    );
  }
  return tools.map((tool: unknown, i) => {
    const at = `tools[${i}]`;
    if (!isObject(tool)) throw wrongType(at, 'an object', tool);
    if (tool.type === undefined) throw missing(`${at}.type`);
    if ((OPENAI_RESPONSES_RULES.otherToolTypes as readonly unknown[]).includes(tool.type)) {
      throw new Error(`tools of type ${JSON.stringify(tool.type)} are documented but not implemented by the fake`);
    }
    if (tool.type !== 'function') {
      throw notOneOf(`${at}.type`, tool.type, [
        ...OPENAI_RESPONSES_RULES.toolTypes,
        ...OPENAI_RESPONSES_RULES.otherToolTypes,
      ]);
    }
    const extra = Object.keys(tool).find(
      (key) => !(OPENAI_RESPONSES_RULES.functionFields as readonly string[]).includes(key),
    );
    if (extra) throw unknownParameter(`${at}.${extra}`);
    // The flat tool's function fields, checked as chat checks a function; null is "not set" here.
    const { name, description, parameters, strict } = tool;
    const definition = Object.fromEntries(
      Object.entries({ name, description, parameters, strict }).filter(
        ([, value]) => value !== undefined && value !== null,
      ),
    );
    checkFunctionDefinition(definition, at, 'function');
    return name as string;
  });
}

function checkToolChoice(choice: unknown, toolNames: string[] | null): void {
  if (choice === undefined) return;
  const choices: readonly string[] = OPENAI_RESPONSES_RULES.toolChoices;
  if (typeof choice === 'string') {
    if (!choices.includes(choice)) throw notOneOf('tool_choice', choice, choices);
    return;
  }
  if (!isObject(choice)) throw wrongType('tool_choice', 'one of a string or object', choice);
  const named = (name: unknown, at: string) => {
    if (typeof name !== 'string') throw missing(`${at}.name`);
    if (!toolNames?.includes(name)) {
      throw invalid(
        `Invalid value for '${at}': function '${name}' is not one of the tools in 'tools'.`,
        at,
        'invalid_value',
      );
    }
  };
  if (choice.type === 'function') return named(choice.name, 'tool_choice');
  if (choice.type !== 'allowed_tools')
    throw new Error(`tool_choice ${String(choice.type)} is not implemented by the fake`);
  if (!['auto', 'required'].includes(choice.mode as string))
    throw notOneOf('tool_choice.mode', choice.mode, ['auto', 'required']);
  if (!Array.isArray(choice.tools)) throw wrongType('tool_choice.tools', 'an array', choice.tools);
  choice.tools.forEach((tool: unknown, i) => named(isObject(tool) ? tool.name : undefined, `tool_choice.tools[${i}]`));
}

/** `text.format` as Structured Outputs documents it; json_object needs the word JSON somewhere in the input. */
function checkText(text: unknown, instructions: unknown, input: ResponsesItem[] | string | undefined): void {
  if (text === undefined || text === null) return;
  if (!isObject(text)) throw wrongType('text', 'an object', text);
  const extra = Object.keys(text).find((key) => key !== 'format' && key !== 'verbosity');
  if (extra) throw unknownParameter(`text.${extra}`);
  if (text.verbosity !== undefined && text.verbosity !== null) {
    checkValue(
      'text.verbosity',
      text.verbosity,
      { kind: 'enum', values: OPENAI_RESPONSES_RULES.verbosities },
      'openai',
    );
  }
  const format = text.format;
  if (format === undefined) return;
  if (!isObject(format)) throw wrongType('text.format', 'an object', format);
  if (format.type === undefined) throw missing('text.format.type');
  if (!(OPENAI_RESPONSES_RULES.textFormats as readonly unknown[]).includes(format.type)) {
    throw notOneOf('text.format.type', format.type, OPENAI_RESPONSES_RULES.textFormats);
  }
  const allowed = format.type === 'json_schema' ? ['type', 'name', 'schema', 'description', 'strict'] : ['type'];
  const extraFormat = Object.keys(format).find((key) => !allowed.includes(key));
  if (extraFormat) throw unknownParameter(`text.format.${extraFormat}`);
  if (format.type === 'json_object') {
    const words = [typeof instructions === 'string' ? instructions : '', JSON.stringify(input ?? '')].join(' ');
    if (!OPENAI_CHAT_RULES.jsonWord.test(words)) throw invalid(OPENAI_RESPONSES_RULES.jsonWordMessage, 'input');
  }
  if (format.type !== 'json_schema') return;
  checkName(format.name, 'text.format.name');
  if (format.schema === undefined) throw missing('text.format.schema');
  if (!isObject(format.schema)) throw wrongType('text.format.schema', 'an object', format.schema);
  const label = `Invalid schema for response_format '${format.name as string}'`;
  const problem = schemaProblem(format.schema) ?? (format.strict === true ? strictSchemaProblem(format.schema) : null);
  if (problem) throw invalid(`${label}: ${problem}`, 'text.format.schema', 'invalid_json_schema');
}
