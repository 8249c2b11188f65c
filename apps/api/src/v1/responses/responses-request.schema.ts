/**
 * OpenAI's Responses request body (docs/contracts.md, responses), as JSON Schema: the shapes of every field the
 * gateway takes. Ranges of what becomes a chat field (temperature, top_p, tool names and schemas, token limits) are
 * the chat request's, checked once the request is translated (ChatRequestService), and reported under the
 * Responses field's name. OpenAI's fields that no route can honour are admitted here and refused by name after
 * (responses-request.service.ts), so the caller reads "not supported" rather than "unknown".
 */

const MAX_TEXT = 1_000_000;
const ID = { type: 'string', minLength: 1, maxLength: 256 } as const;

function nullable<S extends Record<string, unknown>>(schema: S) {
  return { anyOf: [schema, { type: 'null' }] };
}

function part(type: string, properties: Record<string, unknown>, required: string[] = []) {
  return {
    type: 'object',
    properties: { type: { const: type }, ...properties },
    required: ['type', ...required],
    additionalProperties: false,
  };
}

const inputText = part('input_text', { text: { type: 'string', maxLength: MAX_TEXT } }, ['text']);
const outputText = part(
  'output_text',
  { text: { type: 'string', maxLength: MAX_TEXT }, annotations: { type: 'array' }, logprobs: { type: 'array' } },
  ['text'],
);
const refusal = part('refusal', { refusal: { type: 'string', maxLength: MAX_TEXT } }, ['refusal']);
const inputImage = part('input_image', {
  image_url: nullable({ type: 'string', minLength: 1, maxLength: 20_000_000 }),
  file_id: nullable({ type: 'string', maxLength: 256 }),
  detail: { enum: ['auto', 'low', 'high'] },
});
const inputFile = part('input_file', {
  file_data: { type: 'string', maxLength: 30_000_000 },
  file_id: nullable({ type: 'string', maxLength: 256 }),
  filename: { type: 'string', maxLength: 1024 },
  file_url: { type: 'string', maxLength: 2048 },
});

/** A string, or the parts listed, told apart by `type`. */
function content(parts: readonly object[]) {
  return {
    anyOf: [
      { type: 'string', maxLength: MAX_TEXT },
      {
        type: 'array',
        maxItems: 1000,
        items: { type: 'object', required: ['type'], discriminator: { propertyName: 'type' }, oneOf: parts },
      },
    ],
  };
}

function message(role: string, parts: readonly object[]) {
  return {
    type: 'object',
    properties: {
      type: { const: 'message' },
      role: { const: role },
      content: content(parts),
      id: ID,
      status: { enum: ['in_progress', 'completed', 'incomplete'] },
      phase: nullable({ enum: ['commentary', 'final_answer'] }),
    },
    required: ['role', 'content'],
    additionalProperties: false,
  };
}

/** A message item, `type: "message"` or no type at all (OpenAI's easy input form), told apart by `role`. */
const messageItem = {
  type: 'object',
  required: ['role'],
  discriminator: { propertyName: 'role' },
  oneOf: [
    message('user', [inputText, inputImage, inputFile]),
    message('system', [inputText]),
    message('developer', [inputText]),
    message('assistant', [outputText, refusal, inputText]),
  ],
} as const;

const functionCall = part(
  'function_call',
  {
    call_id: ID,
    name: { type: 'string', minLength: 1, maxLength: 256 },
    arguments: { type: 'string', maxLength: MAX_TEXT },
    id: ID,
    status: { enum: ['in_progress', 'completed', 'incomplete'] },
  },
  ['call_id', 'name', 'arguments'],
);

const functionCallOutput = part(
  'function_call_output',
  {
    call_id: ID,
    output: content([inputText, inputImage, inputFile]),
    id: nullable(ID),
    status: nullable({ enum: ['in_progress', 'completed', 'incomplete'] }),
  },
  ['call_id', 'output'],
);

const itemReference = part('item_reference', { id: ID }, ['id']);

/** The item types the gateway takes; any other `type` is refused by name before this schema runs. */
export const INPUT_ITEM_TYPES = ['message', 'function_call', 'function_call_output', 'item_reference'] as const;

const inputItem = {
  type: 'object',
  if: { properties: { type: { const: 'function_call' } }, required: ['type'] },
  then: functionCall,
  else: {
    if: { properties: { type: { const: 'function_call_output' } }, required: ['type'] },
    then: functionCallOutput,
    else: {
      if: { properties: { type: { const: 'item_reference' } }, required: ['type'] },
      then: itemReference,
      else: messageItem,
    },
  },
} as const;

/** Responses' flat function tool; other tool types are refused by name before this schema runs. */
const functionTool = part(
  'function',
  {
    name: { type: 'string', minLength: 1, maxLength: 256 },
    description: nullable({ type: 'string', maxLength: 100_000 }),
    parameters: nullable({ type: 'object' }),
    strict: nullable({ type: 'boolean' }),
  },
  ['name'],
);

const namedFunction = part('function', { name: { type: 'string', minLength: 1, maxLength: 256 } }, ['name']);

const toolChoice = {
  anyOf: [
    { enum: ['none', 'auto', 'required'] },
    namedFunction,
    part(
      'allowed_tools',
      { mode: { enum: ['auto', 'required'] }, tools: { type: 'array', maxItems: 128, items: namedFunction } },
      ['mode', 'tools'],
    ),
  ],
} as const;

const textFormat = {
  type: 'object',
  required: ['type'],
  discriminator: { propertyName: 'type' },
  oneOf: [
    part('text', {}),
    part('json_object', {}),
    part(
      'json_schema',
      {
        name: { type: 'string', minLength: 1, maxLength: 256 },
        description: { type: 'string', maxLength: 100_000 },
        schema: { type: 'object' },
        strict: nullable({ type: 'boolean' }),
      },
      ['name', 'schema'],
    ),
  ],
} as const;

/** The whole request body. `model` is checked against the catalog afterwards. */
export const RESPONSES_REQUEST_SCHEMA = {
  type: 'object',
  properties: {
    model: { type: 'string', minLength: 1, maxLength: 200 },
    input: {
      anyOf: [
        { type: 'string', maxLength: MAX_TEXT },
        { type: 'array', maxItems: 2048, items: inputItem },
      ],
    },
    instructions: nullable({ type: 'string', maxLength: MAX_TEXT }),
    // OpenAI's floor: fewer output tokens than this is a 400 there.
    max_output_tokens: nullable({ type: 'integer', minimum: 16 }),
    temperature: nullable({ type: 'number' }),
    top_p: nullable({ type: 'number' }),
    tools: { type: 'array', maxItems: 128, items: functionTool },
    tool_choice: toolChoice,
    parallel_tool_calls: nullable({ type: 'boolean' }),
    text: nullable({
      type: 'object',
      properties: { format: textFormat, verbosity: nullable({ enum: ['low', 'medium', 'high'] }) },
      additionalProperties: false,
    }),
    stream: nullable({ type: 'boolean' }),
    stream_options: nullable({
      type: 'object',
      properties: { include_obfuscation: { type: 'boolean' } },
      additionalProperties: false,
    }),
    store: nullable({ type: 'boolean' }),
    previous_response_id: nullable({ type: 'string', minLength: 1, maxLength: 64 }),
    metadata: nullable({
      type: 'object',
      maxProperties: 16,
      propertyNames: { maxLength: 64 },
      additionalProperties: { type: 'string', maxLength: 512 },
    }),
    user: { type: 'string' },
    safety_identifier: { type: 'string' },
    prompt_cache_key: { type: 'string' },
    reasoning: nullable({
      type: 'object',
      properties: {
        effort: nullable({ type: 'string' }),
        summary: nullable({ enum: ['auto', 'concise', 'detailed'] }),
        generate_summary: nullable({ enum: ['auto', 'concise', 'detailed'] }),
      },
      additionalProperties: false,
    }),
    service_tier: nullable({ type: 'string' }),
    // Admitted to be refused by name when set (responses-request.service.ts, UNSUPPORTED).
    truncation: nullable({ enum: ['auto', 'disabled'] }),
    include: nullable({ type: 'array', maxItems: 32, items: { type: 'string', maxLength: 256 } }),
    background: nullable({ type: 'boolean' }),
    conversation: nullable({ anyOf: [{ type: 'string', maxLength: 256 }, { type: 'object' }] }),
    max_tool_calls: nullable({ type: 'integer', minimum: 1 }),
    prompt: nullable({ type: 'object' }),
    top_logprobs: nullable({ type: 'integer', minimum: 0, maximum: 20 }),
    prompt_cache_retention: nullable({ enum: ['in_memory', '24h'] }),
  },
  required: ['model'],
  additionalProperties: false,
} as const;
