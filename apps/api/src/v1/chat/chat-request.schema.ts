/**
 * OpenAI's Chat Completions request body (docs/contracts.md, chat), as JSON Schema: every field of the reference with
 * its type and range, each bounded so that a hostile body is refused before it costs anything. Fields are nullable
 * where OpenAI's are, since SDKs send `null` for "not set".
 */

const TOOL_NAME = { type: 'string', pattern: '^[a-zA-Z0-9_-]{1,64}$' } as const;
const MAX_TEXT = 1_000_000;
/** A schema given by the caller (tool parameters, json_schema): an object, bounded by the body limit. */
const CALLER_SCHEMA = { type: 'object' } as const;

function nullable<S extends Record<string, unknown>>(schema: S) {
  return { anyOf: [schema, { type: 'null' }] };
}

const textPart = {
  type: 'object',
  properties: { type: { const: 'text' }, text: { type: 'string', maxLength: MAX_TEXT } },
  required: ['type', 'text'],
  additionalProperties: false,
} as const;

const refusalPart = {
  type: 'object',
  properties: { type: { const: 'refusal' }, refusal: { type: 'string', maxLength: MAX_TEXT } },
  required: ['type', 'refusal'],
  additionalProperties: false,
} as const;

const imagePart = {
  type: 'object',
  properties: {
    type: { const: 'image_url' },
    image_url: {
      type: 'object',
      properties: {
        url: { type: 'string', minLength: 1, maxLength: 20_000_000 },
        detail: { enum: ['auto', 'low', 'high'] },
      },
      required: ['url'],
      additionalProperties: false,
    },
  },
  required: ['type', 'image_url'],
  additionalProperties: false,
} as const;

const audioPart = {
  type: 'object',
  properties: {
    type: { const: 'input_audio' },
    input_audio: {
      type: 'object',
      properties: { data: { type: 'string', maxLength: 30_000_000 }, format: { enum: ['wav', 'mp3'] } },
      required: ['data', 'format'],
      additionalProperties: false,
    },
  },
  required: ['type', 'input_audio'],
  additionalProperties: false,
} as const;

const filePart = {
  type: 'object',
  properties: {
    type: { const: 'file' },
    file: {
      type: 'object',
      properties: {
        file_data: { type: 'string', maxLength: 30_000_000 },
        file_id: { type: 'string', maxLength: 256 },
        filename: { type: 'string', maxLength: 1024 },
      },
      additionalProperties: false,
    },
  },
  required: ['type', 'file'],
  additionalProperties: false,
} as const;

/** `content` of a role: a string, or an array of the parts that role may send. */
function contentOf(parts: readonly object[], options: { nullable?: boolean; required?: boolean } = {}) {
  const array = {
    type: 'array',
    maxItems: 1000,
    items: { type: 'object', required: ['type'], discriminator: { propertyName: 'type' }, oneOf: parts },
  };
  const shapes: object[] = [{ type: 'string', maxLength: MAX_TEXT }, array];
  if (options.nullable) shapes.push({ type: 'null' });
  return { anyOf: shapes };
}

const NAME = { type: 'string', minLength: 1, maxLength: 64 } as const;

const toolCall = {
  type: 'object',
  properties: {
    id: { type: 'string', minLength: 1, maxLength: 256 },
    type: { const: 'function' },
    function: {
      type: 'object',
      properties: { name: { type: 'string', maxLength: 256 }, arguments: { type: 'string', maxLength: MAX_TEXT } },
      required: ['name', 'arguments'],
      additionalProperties: false,
    },
  },
  required: ['id', 'type', 'function'],
  additionalProperties: false,
} as const;

function message(role: string, properties: Record<string, unknown>, required: string[] = ['content']) {
  return {
    type: 'object',
    properties: { role: { const: role }, name: NAME, ...properties },
    required: ['role', ...required],
    additionalProperties: false,
  };
}

const messages = {
  type: 'array',
  minItems: 1,
  maxItems: 2048,
  items: {
    type: 'object',
    required: ['role'],
    discriminator: { propertyName: 'role' },
    oneOf: [
      message('system', { content: contentOf([textPart]) }),
      message('developer', { content: contentOf([textPart]) }),
      message('user', { content: contentOf([textPart, imagePart, audioPart, filePart]) }),
      message(
        'assistant',
        {
          content: contentOf([textPart, refusalPart], { nullable: true }),
          refusal: nullable({ type: 'string', maxLength: MAX_TEXT }),
          tool_calls: { type: 'array', maxItems: 128, items: toolCall },
          // What an answer's message carries, so a client can send it back as it came (OpenAI's own pattern).
          annotations: { type: 'array', maxItems: 1000, items: { type: 'object' } },
          function_call: nullable({
            type: 'object',
            properties: {
              name: { type: 'string', maxLength: 256 },
              arguments: { type: 'string', maxLength: MAX_TEXT },
            },
            required: ['name', 'arguments'],
            additionalProperties: false,
          }),
          audio: nullable({
            type: 'object',
            properties: { id: { type: 'string', maxLength: 256 } },
            required: ['id'],
            additionalProperties: false,
          }),
        },
        [],
      ),
      message(
        'tool',
        { content: contentOf([textPart]), tool_call_id: { type: 'string', minLength: 1, maxLength: 256 } },
        ['content', 'tool_call_id'],
      ),
      message('function', { content: nullable({ type: 'string', maxLength: MAX_TEXT }), name: NAME }, [
        'content',
        'name',
      ]),
    ],
  },
} as const;

const functionDefinition = {
  type: 'object',
  properties: {
    name: TOOL_NAME,
    description: { type: 'string', maxLength: 100_000 },
    parameters: CALLER_SCHEMA,
    strict: nullable({ type: 'boolean' }),
  },
  required: ['name'],
  additionalProperties: false,
} as const;

const tools = {
  type: 'array',
  maxItems: 128,
  items: {
    type: 'object',
    properties: { type: { const: 'function' }, function: functionDefinition },
    required: ['type', 'function'],
    additionalProperties: false,
  },
} as const;

const toolChoice = {
  anyOf: [
    { enum: ['none', 'auto', 'required'] },
    {
      type: 'object',
      properties: {
        type: { const: 'function' },
        function: {
          type: 'object',
          properties: { name: TOOL_NAME },
          required: ['name'],
          additionalProperties: false,
        },
      },
      required: ['type', 'function'],
      additionalProperties: false,
    },
    {
      type: 'object',
      properties: {
        type: { const: 'allowed_tools' },
        allowed_tools: {
          type: 'object',
          properties: {
            mode: { enum: ['auto', 'required'] },
            tools: { type: 'array', maxItems: 128, items: { type: 'object' } },
          },
          required: ['mode', 'tools'],
          additionalProperties: false,
        },
      },
      required: ['type', 'allowed_tools'],
      additionalProperties: false,
    },
  ],
} as const;

const responseFormat = {
  type: 'object',
  required: ['type'],
  discriminator: { propertyName: 'type' },
  oneOf: [
    { type: 'object', properties: { type: { const: 'text' } }, additionalProperties: false },
    { type: 'object', properties: { type: { const: 'json_object' } }, additionalProperties: false },
    {
      type: 'object',
      properties: {
        type: { const: 'json_schema' },
        json_schema: {
          type: 'object',
          properties: {
            name: TOOL_NAME,
            description: { type: 'string', maxLength: 100_000 },
            schema: CALLER_SCHEMA,
            strict: nullable({ type: 'boolean' }),
          },
          required: ['name'],
          additionalProperties: false,
        },
      },
      required: ['json_schema'],
      additionalProperties: false,
    },
  ],
} as const;

const stop = nullable({
  anyOf: [
    { type: 'string', maxLength: 256 },
    { type: 'array', maxItems: 4, items: { type: 'string', maxLength: 256 } },
  ],
});

const penalty = nullable({ type: 'number', minimum: -2, maximum: 2 });

/** The whole request body. `model` is checked against the catalog afterwards. */
export const CHAT_REQUEST_SCHEMA = {
  type: 'object',
  properties: {
    model: { type: 'string', minLength: 1, maxLength: 200 },
    messages,
    max_tokens: nullable({ type: 'integer', minimum: 1 }),
    max_completion_tokens: nullable({ type: 'integer', minimum: 1 }),
    n: nullable({ type: 'integer', minimum: 1, maximum: 128 }),
    stop,
    // What every x-chat route takes: OpenAI allows temperature 0–2, DashScope's compatible mode (qwen) [0, 2); past
    // the narrower one a fallback route would answer an upstream 400.
    temperature: nullable({ type: 'number', minimum: 0, exclusiveMaximum: 2 }),
    // OpenAI takes 0–1, DashScope (0, 1].
    top_p: nullable({ type: 'number', exclusiveMinimum: 0, maximum: 1 }),
    presence_penalty: penalty,
    frequency_penalty: penalty,
    logit_bias: nullable({
      type: 'object',
      maxProperties: 1024,
      propertyNames: { pattern: '^[0-9]{1,10}$' },
      additionalProperties: { type: 'number', minimum: -100, maximum: 100 },
    }),
    logprobs: nullable({ type: 'boolean' }),
    top_logprobs: nullable({ type: 'integer', minimum: 0, maximum: 20 }),
    seed: nullable({ type: 'integer', minimum: -(2 ** 53 - 1), maximum: 2 ** 53 - 1 }),
    user: { type: 'string', maxLength: 256 },
    stream: nullable({ type: 'boolean' }),
    stream_options: nullable({
      type: 'object',
      properties: { include_usage: { type: 'boolean' }, include_obfuscation: { type: 'boolean' } },
      additionalProperties: false,
    }),
    tools,
    tool_choice: toolChoice,
    parallel_tool_calls: { type: 'boolean' },
    response_format: responseFormat,
    metadata: nullable({
      type: 'object',
      maxProperties: 16,
      propertyNames: { maxLength: 64 },
      additionalProperties: { type: 'string', maxLength: 512 },
    }),
    store: nullable({ type: 'boolean' }),
    service_tier: nullable({ enum: ['auto', 'default', 'flex', 'scale', 'priority'] }),
    reasoning_effort: nullable({ enum: ['none', 'minimal', 'low', 'medium', 'high', 'xhigh'] }),
    verbosity: nullable({ enum: ['low', 'medium', 'high'] }),
    modalities: nullable({ type: 'array', maxItems: 2, items: { enum: ['text', 'audio'] } }),
    audio: nullable({
      type: 'object',
      properties: {
        voice: { type: 'string', maxLength: 64 },
        format: { enum: ['wav', 'aac', 'mp3', 'flac', 'opus', 'pcm16'] },
      },
      required: ['voice', 'format'],
      additionalProperties: false,
    }),
    prediction: nullable({
      type: 'object',
      properties: { type: { const: 'content' }, content: contentOf([textPart]) },
      required: ['type', 'content'],
      additionalProperties: false,
    }),
    prompt_cache_key: { type: 'string', maxLength: 1024 },
    safety_identifier: { type: 'string', maxLength: 256 },
    web_search_options: { type: 'object', maxProperties: 8 },
    functions: { type: 'array', maxItems: 128, items: functionDefinition },
    function_call: {
      anyOf: [
        { enum: ['none', 'auto'] },
        {
          type: 'object',
          properties: { name: TOOL_NAME },
          required: ['name'],
          additionalProperties: false,
        },
      ],
    },
  },
  required: ['model', 'messages'],
  additionalProperties: false,
} as const;
