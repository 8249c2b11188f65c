// The documented rules the fakes in this folder enforce, in one place. Each entry names the documentation page it
// comes from by its title, so a change in an upstream's documentation is a one-line change here.

/** Alibaba Cloud Model Studio pages. */
export const DASHSCOPE_DOCS = {
  imageEdit: 'Alibaba Cloud Model Studio: Qwen - image editing API reference',
  statusCodes: 'Alibaba Cloud Model Studio: Status codes',
  rateLimits: 'Alibaba Cloud Model Studio: Rate limits',
} as const;

/** What one image-edit model accepts (DASHSCOPE_DOCS.imageEdit, "Model overview" and "Request parameters"). */
export interface DashScopeImageModel {
  /** Outputs per request: `parameters.n` from 1 to this. */
  maxN: number;
  /** `parameters.size` is accepted ("Supports custom resolutions"). */
  size: boolean;
  /** `parameters.prompt_extend` is accepted ("Supports intelligent prompt rewriting"). */
  promptExtend: boolean;
}

/** Models of the qwen-image-edit family (DASHSCOPE_DOCS.imageEdit, "Model overview"). */
export const DASHSCOPE_IMAGE_MODELS: Record<string, DashScopeImageModel> = {
  'qwen-image-edit': { maxN: 1, size: false, promptExtend: false },
  'qwen-image-edit-plus': { maxN: 6, size: true, promptExtend: true },
  'qwen-image-edit-plus-2025-10-30': { maxN: 6, size: true, promptExtend: true },
  'qwen-image-edit-plus-2025-12-15': { maxN: 6, size: true, promptExtend: true },
  'qwen-image-edit-max': { maxN: 6, size: true, promptExtend: true },
  'qwen-image-edit-max-2026-01-16': { maxN: 6, size: true, promptExtend: true },
};

/** Limits of a generation request (DASHSCOPE_DOCS.imageEdit, "Request parameters"). */
export const DASHSCOPE_IMAGE_LIMITS = {
  minImages: 1,
  maxImages: 3,
  /** Each input image, decoded ("Image size: no more than 10 MB"). */
  maxImageBytes: 10 * 1024 * 1024,
  /** Input formats ("JPG, JPEG, PNG, BMP, TIFF, WEBP and GIF"), as MIME types of a data URI. */
  imageMimes: ['image/jpeg', 'image/jpg', 'image/png', 'image/bmp', 'image/tiff', 'image/webp', 'image/gif'],
  /** `parameters.size` sides, each ("width and height ... from 512 to 2048 pixels"). */
  sizeRange: { min: 512, max: 2048 },
  /** Output sides are multiples of this: a requested size is rounded to it. */
  sizeStep: 16,
  /** Default output ("close to 1024*1024, the aspect ratio of the last input"). */
  defaultPixels: 1024 * 1024,
  seedRange: { min: 0, max: 2147483647 },
  /** `text`: longer text is truncated, not refused. */
  maxTextChars: 800,
  negativePromptChars: 500,
  /** How long a result URL can be downloaded ("valid for 24 hours"). */
  resultUrlSeconds: 24 * 3600,
  /** The request body's media type; anything else is refused. */
  contentType: 'application/json',
  /**
   * The largest request body the fake accepts, refused above with BadRequest.TooLarge. Not a documented figure: the
   * documented request at its largest, three images at the per-image limit as base64 data URIs plus the text.
   */
  maxBodyBytes: 3 * Math.ceil((10 * 1024 * 1024 * 4) / 3) + 64 * 1024,
  /** Image URLs in `content` are fetched by the service itself ("public URL ... HTTP or HTTPS"). */
  imageUrlSchemes: ['http:', 'https:'],
  /** Input width and height, each ("must be within the range [384, 3072] pixels"). */
  inputSides: { min: 384, max: 3072 },
} as const;

/**
 * Per-second request limit of one model under an account (DASHSCOPE_DOCS.rateLimits: RPS, requests beyond it answer
 * 429 Throttling.RateQuota). The fake applies it only when a test sets `rateLimitPerSecond`.
 */
export const DASHSCOPE_RATE_WINDOW_MS = 1000;

/** Fields a successful generation answer carries, and nothing else (DASHSCOPE_DOCS.imageEdit, "Response parameters"). */
export const DASHSCOPE_ANSWER_FIELDS = {
  top: ['output', 'usage', 'request_id'],
  choice: ['finish_reason', 'message'],
  message: ['role', 'content'],
  contentItem: ['image'],
  usage: ['width', 'height', 'image_count'],
} as const;

/** The error-code page by its address: the English edition, and the Chinese one, which lists more codes. */
export const DASHSCOPE_ERROR_PAGES = {
  en: 'https://www.alibabacloud.com/help/en/model-studio/error-code',
  zh: 'https://help.aliyun.com/zh/model-studio/error-code',
} as const;

/** One documented error answer: its HTTP status, the message DashScope sends, and the page (address) it is on. */
export interface DashScopeErrorRule {
  status: number;
  message: string;
  page: string;
}

/**
 * Error answers by code (DASHSCOPE_DOCS.statusCodes, DASHSCOPE_ERROR_PAGES). The body is `{request_id, code,
 * message}`; a few codes also come back on HTTP 200 from some endpoints, which is still a failure. Where one code
 * has several documented messages, DASHSCOPE_ERROR_MESSAGES names the others.
 */
export const DASHSCOPE_ERRORS: Record<string, DashScopeErrorRule> = {
  InvalidParameter: {
    status: 400,
    message: 'Required parameter(s) missing or invalid, please check the request parameters.',
    page: DASHSCOPE_ERROR_PAGES.en,
  },
  DataInspectionFailed: {
    status: 400,
    message: 'Input or output data may contain inappropriate content.',
    page: DASHSCOPE_ERROR_PAGES.en,
  },
  InvalidURL: { status: 400, message: 'Invalid URL provided in your request.', page: DASHSCOPE_ERROR_PAGES.en },
  'BadRequest.InputDownloadFailed': {
    status: 400,
    message: 'Failed to download the input file: the URL answered HTTP 404.',
    page: DASHSCOPE_ERROR_PAGES.zh,
  },
  'BadRequest.UnsupportedFileFormat': {
    status: 400,
    message: 'Input file format is not supported.',
    page: DASHSCOPE_ERROR_PAGES.zh,
  },
  Arrearage: {
    status: 400,
    message: 'Access denied, please make sure your account is in good standing.',
    page: DASHSCOPE_ERROR_PAGES.en,
  },
  InvalidApiKey: { status: 401, message: 'Invalid API-key provided.', page: DASHSCOPE_ERROR_PAGES.en },
  AccessDenied: { status: 403, message: 'Access denied.', page: DASHSCOPE_ERROR_PAGES.en },
  'AccessDenied.Unpurchased': {
    status: 403,
    message: 'Access to model denied. Please make sure you are eligible for using the model.',
    page: DASHSCOPE_ERROR_PAGES.zh,
  },
  'Model.AccessDenied': { status: 403, message: 'Model access denied.', page: DASHSCOPE_ERROR_PAGES.zh },
  'Workspace.AccessDenied': { status: 403, message: 'Workspace access denied.', page: DASHSCOPE_ERROR_PAGES.zh },
  'AllocationQuota.FreeTierOnly': {
    status: 403,
    message:
      'The free tier of the model has been exhausted. If you wish to continue access the model on a paid basis, please disable the "use free tier only" mode in the management console.',
    page: DASHSCOPE_ERROR_PAGES.zh,
  },
  ModelNotFound: { status: 404, message: 'Model can not be found.', page: DASHSCOPE_ERROR_PAGES.zh },
  RequestTimeOut: {
    status: 408,
    message: 'Request timed out, please try again later.',
    page: DASHSCOPE_ERROR_PAGES.en,
  },
  'BadRequest.TooLarge': { status: 413, message: 'Payload Too Large', page: DASHSCOPE_ERROR_PAGES.en },
  /** Not on the page: what the fake answers a body that is not JSON. */
  UnsupportedMediaType: {
    status: 415,
    message: 'The request Content-Type is not supported; use application/json.',
    page: DASHSCOPE_ERROR_PAGES.en,
  },
  Throttling: { status: 429, message: 'Requests throttling triggered.', page: DASHSCOPE_ERROR_PAGES.en },
  'Throttling.RateQuota': {
    status: 429,
    message: 'Requests rate limit exceeded, please try again later.',
    page: DASHSCOPE_ERROR_PAGES.en,
  },
  LimitRequests: { status: 429, message: 'You exceeded your current requests list.', page: DASHSCOPE_ERROR_PAGES.zh },
  /** A TPS/TPM throttle; DASHSCOPE_ERROR_MESSAGES.freeQuotaExceeded is the same code for a used-up free quota. */
  'Throttling.AllocationQuota': {
    status: 429,
    message: 'Allocated quota exceeded, please increase your quota limit.',
    page: DASHSCOPE_ERROR_PAGES.zh,
  },
  CommodityNotPurchased: { status: 429, message: 'Commodity has not purchased yet.', page: DASHSCOPE_ERROR_PAGES.zh },
  PrepaidBillOverdue: { status: 429, message: 'The prepaid bill is overdue.', page: DASHSCOPE_ERROR_PAGES.zh },
  PostpaidBillOverdue: { status: 429, message: 'The postpaid bill is overdue.', page: DASHSCOPE_ERROR_PAGES.zh },
  InternalError: {
    status: 500,
    message: 'An internal error has occured, please try again later or contact service support.',
    page: DASHSCOPE_ERROR_PAGES.en,
  },
  'InternalError.Algo': {
    status: 500,
    message: 'An internal error has occured during execution, please try again later or contact service support.',
    page: DASHSCOPE_ERROR_PAGES.zh,
  },
  ModelUnavailable: {
    status: 503,
    message: 'Model is unavailable, please try again later.',
    page: DASHSCOPE_ERROR_PAGES.en,
  },
};

/** Other documented messages of a code in DASHSCOPE_ERRORS, which mean something else (DASHSCOPE_ERROR_PAGES.zh). */
export const DASHSCOPE_ERROR_MESSAGES = {
  /** Throttling.AllocationQuota (429) or compatible mode's insufficient_quota: the free quota is used up for good. */
  freeQuotaExceeded: 'Free allocated quota exceeded.',
  /** InternalError.Algo on HTTP 400: an input URL answered without a Content-Length. */
  missingContentLength: 'Missing Content-Length of multimodal url.',
} as const;

/** The code a DashScope failure carries for a bare HTTP status, when a test scripts only the status. */
export const DASHSCOPE_CODE_FOR_STATUS: Record<number, string> = {
  400: 'InvalidParameter',
  401: 'InvalidApiKey',
  403: 'AccessDenied',
  404: 'ModelNotFound',
  408: 'RequestTimeOut',
  413: 'BadRequest.TooLarge',
  415: 'UnsupportedMediaType',
  429: 'Throttling.RateQuota',
  500: 'InternalError',
  503: 'ModelUnavailable',
};

/**
 * Latency a fake adds by default so timing-dependent code meets realistic delays, scaled down to keep the suite
 * fast: a generation takes seconds upstream, a result download tens of ms. Tests that need an instant upstream
 * pass 0.
 */
export const DASHSCOPE_DEFAULT_LATENCY_MS = { generation: 150, download: 5 } as const;

// ---------------------------------------------------------------------------------------------------------------
// OPENAI: OpenAI's API and DashScope's OpenAI-compatible mode, as test/fakes/openai-fake.ts serves them.

/** OpenAI and Alibaba Cloud Model Studio pages. */
export const OPENAI_DOCS = {
  embeddings: 'OpenAI API reference: Create embeddings',
  chat: 'OpenAI API reference: Create chat completion',
  chatObject: 'OpenAI API reference: The chat completion object',
  chatChunk: 'OpenAI API reference: The chat completion chunk object',
  imageEdit: 'OpenAI API reference: Create image edit',
  debugging: 'OpenAI API reference: Debugging requests',
  errorCodes: 'OpenAI API: Error codes',
  embeddingsGuide: 'OpenAI API: Vector embeddings',
  tokens: 'OpenAI Help Center: What are tokens and how to count them?',
  structuredOutputs: 'OpenAI API: Structured model outputs',
  functionCalling: 'OpenAI API: Function calling',
  compatibleChat: 'Alibaba Cloud Model Studio: OpenAI compatible - Chat',
  compatibleChatReference: 'Alibaba Cloud Model Studio: OpenAI Chat (request body)',
  compatibleStructuredOutput: 'Alibaba Cloud Model Studio: Structured output',
  compatibleFunctionCalling: 'Alibaba Cloud Model Studio: Function calling',
  compatibleEmbedding: 'Alibaba Cloud Model Studio: OpenAI compatible - Embedding',
  responses: 'OpenAI API reference: Create a model response',
  responseObject: 'OpenAI API reference: The response object',
  responseStreaming: 'OpenAI API reference: Streaming events (Responses)',
  conversationState: 'OpenAI API: Conversation state',
} as const;

/**
 * Whose rules a request meets: OpenAI's, or DashScope's compatible mode. Compatible mode is told by its models
 * (OPENAI_DOCS.compatibleChat "Supported models": qwen-*, qwq-*; OPENAI_DOCS.compatibleEmbedding: text-embedding-v*)
 * or by its path (OPENAI_DOCS.compatibleChat, base_url `…/compatible-mode/v1`).
 */
export type OpenAiDialect = 'openai' | 'compatible';
export const COMPATIBLE_MODE_MODELS = /^(qwen|qwq|text-embedding-v\d)/;
export const COMPATIBLE_MODE_PATH = '/compatible-mode/v1';

/** Request media type by endpoint: JSON bodies (each page's `Content-Type: application/json`), a form for edits (OPENAI_DOCS.imageEdit). */
export const OPENAI_CONTENT_TYPES: Record<string, string> = {
  '/embeddings': 'application/json',
  '/chat/completions': 'application/json',
  '/responses': 'application/json',
  '/images/edits': 'multipart/form-data',
};

/**
 * Body fields by endpoint (OPENAI_DOCS.embeddings, .imageEdit), limited to those the gateway sends
 * (libs/providers/src/openai-compatible): any other is refused as OpenAI refuses an unknown one. Chat takes every
 * documented field: OPENAI_CHAT_FIELDS.
 */
export const OPENAI_REQUEST_FIELDS = {
  embeddings: ['model', 'input', 'encoding_format', 'dimensions', 'user'],
  streamOptions: ['include_usage', 'include_obfuscation'],
  imageEdit: ['model', 'prompt', 'image', 'image[]', 'n', 'size', 'response_format'],
} as const;

// ---------------------------------------------------------------------------------------------------------------
// Chat Completions, as test/fakes/openai-chat-request.ts checks a request and openai-chat.ts answers it.
//
// What DashScope's compatible mode takes, per its documentation (read 2026-11, stored copies of these pages):
//   - https://www.alibabacloud.com/help/en/model-studio/qwen-api-via-openai-chat-completions and
//     https://docs.qwencloud.com/api-reference/chat/openai-chat (OPENAI_DOCS.compatibleChatReference): endpoint
//     POST …/compatible-mode/v1/chat/completions; `messages` are System, User, Assistant and Tool messages (no
//     `developer`, no legacy `function`); answers carry `system_fingerprint: null` and `logprobs: null` per choice.
//   - https://www.alibabacloud.com/help/en/model-studio/compatibility-of-openai-with-dashscope
//     (OPENAI_DOCS.compatibleChat): temperature [0, 2), top_p (0, 1.0].
//   - https://www.alibabacloud.com/help/en/model-studio/qwen-structured-output (OPENAI_DOCS.compatibleStructuredOutput):
//     `response_format` json_object (a message must contain "JSON", case-insensitive, or it answers "'messages'
//     must contain the word 'json' in some form, to use 'response_format' of type 'json_object'.") and json_schema
//     with `strict`, the latter for Qwen-Max/Plus/Flash in non-thinking mode only.
//   - https://www.alibabacloud.com/help/en/model-studio/qwen-function-calling (OPENAI_DOCS.compatibleFunctionCalling):
//     `tools` (function tools), tool results as `tool` messages, `parallel_tool_calls`.
//   - Also on the request-body reference, but not in the parts of it the stored copy showed, so taken from the
//     reference as last read by hand: `n` 1–4 (Qwen-Plus and Qwen3 non-thinking; 1 when `tools` is given),
//     `logprobs` with `top_logprobs` 0–5, `seed` 0–2^31−1, `presence_penalty` [-2.0, 2.0], `tool_choice` "auto",
//     "none" or a named function (no "required"), `stream_options.include_usage`, `max_tokens` (no
//     `max_completion_tokens`), `stop`, and DashScope's own `enable_thinking`, `thinking_budget`, `enable_search`,
//     `search_options`, `top_k`, `repetition_penalty`. `frequency_penalty` is listed by Alibaba's OpenSearch
//     compatible endpoint (https://www.alibabacloud.com/help/en/open-search/search-platform/developer-reference/openai-api-details)
//     at [-2.0, 2.0]; the fake takes it.
//   - Not listed anywhere, so refused here: `max_completion_tokens`, `logit_bias`, `user`, `metadata`, `store`,
//     `service_tier`, `reasoning_effort` (DashScope has `enable_thinking`), `verbosity`, `prediction`,
//     `prompt_cache_*`, `safety_identifier`, `web_search_options` (DashScope has `enable_search`), `moderation`,
//     the deprecated `functions` / `function_call`, content parts `file` (and `refusal`), custom tools,
//     `tool_choice: "required"` and `allowed_tools`. The real service may ignore some of these silently; the fake
//     refuses them so a gateway that relies on one fails here instead.

/**
 * The Chat Completions request fields each dialect takes: OpenAI every field of OPENAI_DOCS.chat (as the openai SDK
 * 6 types it), compatible mode what its reference lists (above).
 */
export const OPENAI_CHAT_FIELDS = {
  openai: [
    'model',
    'messages',
    'audio',
    'frequency_penalty',
    'function_call',
    'functions',
    'logit_bias',
    'logprobs',
    'max_completion_tokens',
    'max_tokens',
    'metadata',
    'modalities',
    'moderation',
    'n',
    'parallel_tool_calls',
    'prediction',
    'presence_penalty',
    'prompt_cache_key',
    'prompt_cache_options',
    'prompt_cache_retention',
    'reasoning_effort',
    'response_format',
    'safety_identifier',
    'seed',
    'service_tier',
    'stop',
    'store',
    'stream',
    'stream_options',
    'temperature',
    'tool_choice',
    'tools',
    'top_logprobs',
    'top_p',
    'user',
    'verbosity',
    'web_search_options',
  ],
  compatible: [
    'model',
    'messages',
    'max_tokens',
    'n',
    'stop',
    'temperature',
    'top_p',
    'presence_penalty',
    'frequency_penalty',
    'logprobs',
    'top_logprobs',
    'seed',
    'stream',
    'stream_options',
    'tools',
    'tool_choice',
    'parallel_tool_calls',
    'response_format',
    'enable_thinking',
    'thinking_budget',
    'enable_search',
    'search_options',
    'top_k',
    'repetition_penalty',
  ],
} as const satisfies Record<OpenAiDialect, readonly string[]>;

/**
 * The type and range of a scalar chat field. Decimal intervals are written as the docs write them (`[0, 2)`);
 * `nullable` fields also take null, as the openai SDK types them (`n?: number | null`).
 */
export type ChatValueRule =
  | { kind: 'integer'; min?: number; max?: number; nullable?: boolean }
  | { kind: 'decimal'; interval?: string; nullable?: boolean }
  | { kind: 'boolean'; nullable?: boolean }
  | { kind: 'string'; maxLength?: number; nullable?: boolean }
  | { kind: 'enum'; values: readonly string[]; nullable?: boolean };

/** Scalar chat fields by dialect (OPENAI_DOCS.chat; compatible mode per the findings above). */
export const OPENAI_CHAT_VALUES: Record<OpenAiDialect, Record<string, ChatValueRule>> = {
  openai: {
    // A count of tokens to generate, so at least 1.
    max_tokens: { kind: 'integer', min: 1, nullable: true },
    max_completion_tokens: { kind: 'integer', min: 1, nullable: true },
    n: { kind: 'integer', min: 1, max: 128, nullable: true },
    temperature: { kind: 'decimal', interval: '[0, 2]', nullable: true },
    top_p: { kind: 'decimal', interval: '[0, 1]', nullable: true },
    presence_penalty: { kind: 'decimal', interval: '[-2, 2]', nullable: true },
    frequency_penalty: { kind: 'decimal', interval: '[-2, 2]', nullable: true },
    logprobs: { kind: 'boolean', nullable: true },
    top_logprobs: { kind: 'integer', min: 0, max: 20, nullable: true },
    seed: { kind: 'integer', nullable: true },
    stream: { kind: 'boolean', nullable: true },
    store: { kind: 'boolean', nullable: true },
    parallel_tool_calls: { kind: 'boolean' },
    user: { kind: 'string' },
    prompt_cache_key: { kind: 'string', nullable: true },
    safety_identifier: { kind: 'string', maxLength: 64, nullable: true },
    service_tier: { kind: 'enum', values: ['auto', 'default', 'flex', 'scale', 'priority'], nullable: true },
    reasoning_effort: {
      kind: 'enum',
      values: ['none', 'minimal', 'low', 'medium', 'high', 'xhigh', 'max'],
      nullable: true,
    },
    verbosity: { kind: 'enum', values: ['low', 'medium', 'high'], nullable: true },
    prompt_cache_retention: { kind: 'enum', values: ['in_memory', '24h'], nullable: true },
  },
  compatible: {
    max_tokens: { kind: 'integer', min: 1, nullable: true },
    n: { kind: 'integer', min: 1, max: 4, nullable: true },
    temperature: { kind: 'decimal', interval: '[0, 2)', nullable: true },
    top_p: { kind: 'decimal', interval: '(0, 1]', nullable: true },
    presence_penalty: { kind: 'decimal', interval: '[-2, 2]', nullable: true },
    frequency_penalty: { kind: 'decimal', interval: '[-2, 2]', nullable: true },
    logprobs: { kind: 'boolean', nullable: true },
    top_logprobs: { kind: 'integer', min: 0, max: 5, nullable: true },
    seed: { kind: 'integer', min: 0, max: 2 ** 31 - 1, nullable: true },
    stream: { kind: 'boolean', nullable: true },
    parallel_tool_calls: { kind: 'boolean' },
    enable_thinking: { kind: 'boolean' },
    thinking_budget: { kind: 'integer', min: 1 },
    enable_search: { kind: 'boolean' },
    top_k: { kind: 'integer', min: 0, nullable: true },
    repetition_penalty: { kind: 'decimal', nullable: true },
  },
};

/** Message, content, tool and format rules (OPENAI_DOCS.chat, .structuredOutputs, .functionCalling; compatible per the findings above). */
export const OPENAI_CHAT_RULES = {
  roles: {
    openai: ['developer', 'system', 'user', 'assistant', 'tool', 'function'],
    compatible: ['system', 'user', 'assistant', 'tool'],
  },
  /** The fields a message of each role takes. */
  messageFields: {
    openai: {
      developer: ['role', 'content', 'name'],
      system: ['role', 'content', 'name'],
      user: ['role', 'content', 'name'],
      // `annotations`: an answer's message sent back as it came, as OpenAI's guides do, is taken. A tool message's
      // `name` is not in the reference, but LangChain sends it on every tool result and OpenAI takes it.
      assistant: ['role', 'content', 'name', 'refusal', 'tool_calls', 'function_call', 'audio', 'annotations'],
      tool: ['role', 'content', 'tool_call_id', 'name'],
      function: ['role', 'content', 'name'],
    },
    // `partial`: DashScope's continuation of a given assistant prefix.
    compatible: {
      system: ['role', 'content', 'name'],
      user: ['role', 'content', 'name'],
      assistant: ['role', 'content', 'name', 'tool_calls', 'partial'],
      tool: ['role', 'content', 'tool_call_id', 'name'],
    },
  } as Record<OpenAiDialect, Record<string, readonly string[]>>,
  /** The content part types a message of each role takes, when its content is an array. */
  contentParts: {
    openai: {
      developer: ['text'],
      system: ['text'],
      user: ['text', 'image_url', 'input_audio', 'file'],
      assistant: ['text', 'refusal'],
      tool: ['text'],
      function: [],
    },
    compatible: {
      system: ['text'],
      user: ['text', 'image_url', 'input_audio', 'video', 'video_url'],
      assistant: ['text'],
      tool: ['text'],
    },
  } as Record<OpenAiDialect, Record<string, readonly string[]>>,
  /** The fields of each content part type. */
  partFields: {
    text: ['type', 'text', 'prompt_cache_breakpoint'],
    image_url: ['type', 'image_url', 'prompt_cache_breakpoint'],
    input_audio: ['type', 'input_audio', 'prompt_cache_breakpoint'],
    file: ['type', 'file', 'prompt_cache_breakpoint'],
    refusal: ['type', 'refusal'],
    video: ['type', 'video'],
    video_url: ['type', 'video_url'],
  } as Record<string, readonly string[]>,
  imageDetails: ['auto', 'low', 'high'],
  inputAudioFormats: ['wav', 'mp3'],
  /** `stop`: "Up to 4 sequences". */
  maxStop: 4,
  /** `tools`: at most 128. */
  maxTools: 128,
  toolTypes: { openai: ['function', 'custom'], compatible: ['function'] },
  /** `tool_choice` as a string; an object names a tool (or, OpenAI only, `allowed_tools`). */
  toolChoices: { openai: ['none', 'auto', 'required'], compatible: ['none', 'auto'] },
  toolChoiceTypes: { openai: ['function', 'custom', 'allowed_tools'], compatible: ['function'] },
  /** A function's and a json_schema's `name`: "a-z, A-Z, 0-9, or contain underscores and dashes, with a maximum length of 64". */
  namePattern: /^[a-zA-Z0-9_-]+$/,
  nameMaxLength: 64,
  responseFormats: ['text', 'json_object', 'json_schema'],
  /** json_object: the messages must ask for JSON in words. */
  jsonWord: /json/i,
  jsonWordMessage:
    "'messages' must contain the word 'json' in some form, to use 'response_format' of type 'json_object'.",
  /** `logit_bias` values, keyed by token id. */
  logitBias: { min: -100, max: 100 },
  /** `metadata`: "Set of 16 key-value pairs … keys … maximum length of 64 … values … 512". */
  metadata: { maxPairs: 16, maxKeyLength: 64, maxValueLength: 512 },
  modalities: ['text', 'audio'],
  /** Compatible mode: more than one choice only without tools. */
  compatibleMaxNWithTools: 1,
  /** Reasoning models take `max_completion_tokens` only (OPENAI_DOCS.chat, `max_tokens`). */
  reasoningModels: /^(o\d|gpt-5)/,
} as const;

// ---------------------------------------------------------------------------------------------------------------
// Responses, as test/fakes/openai-responses-request.ts checks a request and openai-responses.ts answers it. OpenAI's
// own endpoint only: DashScope's compatible mode has one too, but the gateway never sends it a Responses request
// (its endpoint ignores the fields it does not list), so the fake does not serve it.

/** The request fields of OPENAI_DOCS.responses, as the openai SDK 6 types them (`ResponseCreateParamsBase`). */
export const OPENAI_RESPONSES_FIELDS = [
  'background',
  'context_management',
  'conversation',
  'include',
  'input',
  'instructions',
  'max_output_tokens',
  'metadata',
  'model',
  'moderation',
  'parallel_tool_calls',
  'previous_response_id',
  'prompt',
  'prompt_cache_key',
  'prompt_cache_options',
  'prompt_cache_retention',
  'reasoning',
  'safety_identifier',
  'service_tier',
  'store',
  'stream',
  'stream_options',
  'temperature',
  'text',
  'tool_choice',
  'tools',
  'top_logprobs',
  'top_p',
  'truncation',
  'user',
] as const;

/**
 * Documented fields the fake does not implement: a request using one is answered 500 `fake_error`, so a suite that
 * needs one finds out here instead of getting an answer that ignored it. The gateway refuses them all itself.
 */
export const OPENAI_RESPONSES_NOT_IMPLEMENTED = [
  'context_management',
  'conversation',
  'moderation',
  'prompt',
  'prompt_cache_options',
] as const;

/** Scalar Responses fields (OPENAI_DOCS.responses): types and ranges, as for chat. */
export const OPENAI_RESPONSES_VALUES: Record<string, ChatValueRule> = {
  background: { kind: 'boolean', nullable: true },
  instructions: { kind: 'string', nullable: true },
  // The least a response may generate: fewer is refused.
  max_output_tokens: { kind: 'integer', min: 16, nullable: true },
  parallel_tool_calls: { kind: 'boolean', nullable: true },
  previous_response_id: { kind: 'string', nullable: true },
  prompt_cache_key: { kind: 'string', nullable: true },
  prompt_cache_retention: { kind: 'enum', values: ['in_memory', '24h'], nullable: true },
  safety_identifier: { kind: 'string', maxLength: 64, nullable: true },
  service_tier: { kind: 'enum', values: ['auto', 'default', 'flex', 'scale', 'priority'], nullable: true },
  store: { kind: 'boolean', nullable: true },
  stream: { kind: 'boolean', nullable: true },
  temperature: { kind: 'decimal', interval: '[0, 2]', nullable: true },
  top_logprobs: { kind: 'integer', min: 0, max: 20, nullable: true },
  top_p: { kind: 'decimal', interval: '[0, 1]', nullable: true },
  truncation: { kind: 'enum', values: ['auto', 'disabled'], nullable: true },
  user: { kind: 'string' },
};

/** Input items, tools and formats (OPENAI_DOCS.responses, the openai SDK 6's `ResponseInputItem` and `Tool`). */
export const OPENAI_RESPONSES_RULES = {
  /** Item types the fake answers; `type` may be left out of a message (`EasyInputMessage`). */
  itemTypes: ['message', 'function_call', 'function_call_output', 'item_reference'],
  /** Other documented item types: the gateway never sends them, the fake does not implement them. */
  otherItemTypes: [
    'file_search_call',
    'computer_call',
    'computer_call_output',
    'web_search_call',
    'reasoning',
    'image_generation_call',
    'code_interpreter_call',
    'local_shell_call',
    'local_shell_call_output',
    'shell_call',
    'shell_call_output',
    'apply_patch_call',
    'apply_patch_call_output',
    'mcp_list_tools',
    'mcp_approval_request',
    'mcp_approval_response',
    'mcp_call',
    'custom_tool_call',
    'custom_tool_call_output',
    'compaction',
  ],
  /** The fields of each item type: a message's are the union of EasyInputMessage, Message and ResponseOutputMessage. */
  itemFields: {
    message: ['type', 'role', 'content', 'status', 'id', 'phase'],
    function_call: ['type', 'call_id', 'name', 'arguments', 'id', 'status', 'namespace', 'caller'],
    function_call_output: ['type', 'call_id', 'output', 'id', 'status'],
    item_reference: ['type', 'id'],
  } as Record<string, readonly string[]>,
  roles: ['user', 'assistant', 'system', 'developer'],
  /** Content part types by role: input parts for every role, an earlier answer's parts for the assistant. */
  contentParts: {
    user: ['input_text', 'input_image', 'input_file'],
    system: ['input_text', 'input_image', 'input_file'],
    developer: ['input_text', 'input_image', 'input_file'],
    assistant: ['input_text', 'output_text', 'refusal'],
  } as Record<string, readonly string[]>,
  partFields: {
    input_text: ['type', 'text'],
    output_text: ['type', 'text', 'annotations', 'logprobs'],
    refusal: ['type', 'refusal'],
    input_image: ['type', 'image_url', 'file_id', 'detail'],
    input_file: ['type', 'file_data', 'file_id', 'file_url', 'filename'],
  } as Record<string, readonly string[]>,
  itemStatuses: ['in_progress', 'completed', 'incomplete'],
  maxTools: 128,
  /** Tool types the fake answers, and the other documented ones. */
  toolTypes: ['function'],
  otherToolTypes: [
    'file_search',
    'computer_use_preview',
    'web_search',
    'web_search_preview',
    'mcp',
    'code_interpreter',
    'image_generation',
    'local_shell',
    'shell',
    'custom',
    'apply_patch',
  ],
  functionFields: [
    'type',
    'name',
    'description',
    'parameters',
    'strict',
    'defer_loading',
    'allowed_callers',
    'output_schema',
  ],
  toolChoices: ['none', 'auto', 'required'],
  textFormats: ['text', 'json_object', 'json_schema'],
  verbosities: ['low', 'medium', 'high'],
  jsonWordMessage:
    "Response input messages must contain the word 'json' in some form to use 'text.format' of type 'json_object'.",
  reasoningFields: ['effort', 'summary', 'generate_summary'],
  streamOptions: ['include_obfuscation'],
} as const;

/** What OpenAI answers for ids of things it keeps, when it has none of them (OPENAI_DOCS.conversationState). */
export const OPENAI_RESPONSES_NOT_FOUND = {
  previousResponse: (id: string) => `Previous response with id '${id}' not found.`,
  item: (id: string, store: boolean) =>
    store
      ? `Item with id '${id}' not found.`
      : `Item with id '${id}' not found. Items are not persisted when \`store\` is set to false. Try again with \`store\` set to true, or remove this item from your input.`,
  functionCallOutput: (callId: string) => `No tool call found for function call output with call_id ${callId}.`,
} as const;

/** The `system_fingerprint` the fake's OpenAI answers carry; compatible mode answers null. */
export const OPENAI_SYSTEM_FINGERPRINT = 'fp_fake0openai';

/** What one embedding model takes. */
export interface OpenAiEmbeddingModel {
  /** Inputs per request. */
  maxInputs: number;
  /** Tokens per input. */
  maxInputTokens: number;
  /** Accepted `dimensions`: these values, any from 1 to `upTo`, or `none` (the parameter is refused). */
  dimensions: readonly number[] | { upTo: number } | 'none';
  /** Vector length without `dimensions`. */
  nativeDimensions: number;
}

/** Request-wide embeddings limits (OPENAI_DOCS.embeddings, `input`, and `encoding_format`). */
export const OPENAI_EMBEDDING_LIMITS = {
  /** "any array must be 2048 dimensions or less" (meaning items). */
  maxInputs: 2048,
  /** "8192 tokens for all embedding models". */
  maxInputTokens: 8192,
  /** "a maximum of 300,000 tokens summed across all inputs in a single request". */
  maxRequestTokens: 300_000,
  encodings: ['float', 'base64'],
} as const;

/** Documented embedding models; other names are test-only and get OPENAI_TEST_EMBEDDING_MODEL. */
export const OPENAI_EMBEDDING_MODELS: Record<string, OpenAiEmbeddingModel> = {
  // OPENAI_DOCS.embeddingsGuide: native 1536 and 3072; `dimensions` "Only supported in text-embedding-3 and later".
  'text-embedding-3-small': {
    maxInputs: 2048,
    maxInputTokens: 8192,
    dimensions: { upTo: 1536 },
    nativeDimensions: 1536,
  },
  'text-embedding-3-large': {
    maxInputs: 2048,
    maxInputTokens: 8192,
    dimensions: { upTo: 3072 },
    nativeDimensions: 3072,
  },
  'text-embedding-ada-002': { maxInputs: 2048, maxInputTokens: 8192, dimensions: 'none', nativeDimensions: 1536 },
  // OPENAI_DOCS.compatibleEmbedding, "Supported models": 10 rows of at most 8,192 tokens, these dimensions, 1,024 default.
  'text-embedding-v4': {
    maxInputs: 10,
    maxInputTokens: 8192,
    dimensions: [2048, 1536, 1024, 768, 512, 256, 128, 64],
    nativeDimensions: 1024,
  },
};

/** Test-only model names (embed-a, capped, …): OpenAI's request-wide limits and any positive `dimensions`. */
export const OPENAI_TEST_EMBEDDING_MODEL: OpenAiEmbeddingModel = {
  maxInputs: OPENAI_EMBEDDING_LIMITS.maxInputs,
  maxInputTokens: OPENAI_EMBEDDING_LIMITS.maxInputTokens,
  dimensions: { upTo: Number.MAX_SAFE_INTEGER },
  nativeDimensions: 1024,
};

/** How the fake counts tokens: "~4 characters of text" per token (OPENAI_DOCS.tokens), rounded up. */
export const OPENAI_CHARS_PER_TOKEN = 4;

/**
 * Fields a successful answer carries, and nothing else (OPENAI_DOCS.embeddings "The embedding object",
 * .chatObject, .chatChunk, .imageEdit "The image generation response"). The fake builds answers only from these.
 */
export const OPENAI_ANSWER_FIELDS = {
  embeddings: ['object', 'data', 'model', 'usage'],
  embedding: ['object', 'embedding', 'index'],
  embeddingsUsage: ['prompt_tokens', 'total_tokens'],
  chat: ['id', 'object', 'created', 'model', 'choices', 'usage', 'system_fingerprint', 'service_tier'],
  chatChoice: ['index', 'message', 'finish_reason', 'logprobs'],
  /** OpenAI always sends `refusal` (null) and `annotations` ([]); compatible mode role and content only. */
  chatMessage: ['role', 'content', 'refusal', 'annotations', 'tool_calls', 'function_call'],
  toolCall: ['id', 'type', 'function'],
  customToolCall: ['id', 'type', 'custom'],
  logprobs: ['content', 'refusal'],
  tokenLogprob: ['token', 'logprob', 'bytes', 'top_logprobs'],
  topLogprob: ['token', 'logprob', 'bytes'],
  chatUsage: ['prompt_tokens', 'completion_tokens', 'total_tokens'],
  /** `usage` only with stream_options.include_usage: null on every chunk but the last. */
  chunk: ['id', 'object', 'created', 'model', 'choices', 'usage', 'system_fingerprint', 'service_tier'],
  chunkChoice: ['index', 'delta', 'finish_reason', 'logprobs'],
  chunkDelta: ['role', 'content', 'refusal', 'tool_calls', 'function_call'],
  /** A tool call's first delta carries index, id, type and function.name; the rest only index and arguments. */
  chunkToolCall: ['index', 'id', 'type', 'function', 'custom'],
  imageEdit: ['created', 'data'],
  image: ['b64_json', 'url', 'revised_prompt'],
  /** OPENAI_DOCS.responseObject, as the openai SDK 6 types `Response` (its `output_text` is the SDK's own). */
  response: [
    'id',
    'object',
    'created_at',
    'status',
    'background',
    'completed_at',
    'error',
    'incomplete_details',
    'instructions',
    'max_output_tokens',
    'max_tool_calls',
    'model',
    'output',
    'parallel_tool_calls',
    'previous_response_id',
    'prompt_cache_key',
    'prompt_cache_retention',
    'reasoning',
    'safety_identifier',
    'service_tier',
    'store',
    'temperature',
    'text',
    'tool_choice',
    'tools',
    'top_logprobs',
    'top_p',
    'truncation',
    'usage',
    'user',
    'metadata',
  ],
  outputMessage: ['id', 'type', 'status', 'content', 'role'],
  outputText: ['type', 'annotations', 'logprobs', 'text'],
  functionCall: ['id', 'type', 'status', 'arguments', 'call_id', 'name'],
  responseUsage: ['input_tokens', 'input_tokens_details', 'output_tokens', 'output_tokens_details', 'total_tokens'],
  /** OPENAI_DOCS.responseStreaming: the events the fake sends, each with `type` and `sequence_number`. */
  'response.created': ['type', 'sequence_number', 'response'],
  'response.in_progress': ['type', 'sequence_number', 'response'],
  'response.completed': ['type', 'sequence_number', 'response'],
  'response.incomplete': ['type', 'sequence_number', 'response'],
  'response.output_item.added': ['type', 'sequence_number', 'output_index', 'item'],
  'response.output_item.done': ['type', 'sequence_number', 'output_index', 'item'],
  'response.content_part.added': ['type', 'sequence_number', 'item_id', 'output_index', 'content_index', 'part'],
  'response.content_part.done': ['type', 'sequence_number', 'item_id', 'output_index', 'content_index', 'part'],
  /** `obfuscation` unless stream_options.include_obfuscation is false. */
  'response.output_text.delta': [
    'type',
    'sequence_number',
    'item_id',
    'output_index',
    'content_index',
    'delta',
    'logprobs',
    'obfuscation',
  ],
  'response.output_text.done': [
    'type',
    'sequence_number',
    'item_id',
    'output_index',
    'content_index',
    'text',
    'logprobs',
  ],
  'response.function_call_arguments.delta': [
    'type',
    'sequence_number',
    'item_id',
    'output_index',
    'delta',
    'obfuscation',
  ],
  'response.function_call_arguments.done': ['type', 'sequence_number', 'item_id', 'output_index', 'name', 'arguments'],
} as const;

/** Every answer carries the request's id in this header (OPENAI_DOCS.debugging). */
export const OPENAI_REQUEST_ID_HEADER = 'x-request-id';

/** An error answer: HTTP status and the body's `type`, `code` and `message`; the body is `{error: {message, type, param, code}}`. */
export interface OpenAiErrorRule {
  status: number;
  type: string;
  code: string | null;
  message: string;
}

/**
 * Error answers by name (OPENAI_DOCS.errorCodes, "API errors", with the bodies OpenAI sends for them). A scripted
 * failure names one of these, or gives a status and gets OPENAI_ERROR_FOR_STATUS's.
 */
export const OPENAI_ERRORS = {
  invalid_request: {
    status: 400,
    type: 'invalid_request_error',
    code: null,
    message: 'The request was malformed or missing some required parameters.',
  },
  unsupported_content_type: {
    status: 400,
    type: 'invalid_request_error',
    code: 'unsupported_content_type',
    message: 'Unsupported content type.',
  },
  /** A field the endpoint does not take ("Unrecognized request argument supplied: <name>"). */
  unrecognized_argument: {
    status: 400,
    type: 'invalid_request_error',
    code: null,
    message: 'Unrecognized request argument supplied.',
  },
  invalid_json: {
    status: 400,
    type: 'invalid_request_error',
    code: null,
    message:
      "We could not parse the JSON body of your request. (HINT: This likely means you aren't using your HTTP library correctly. The OpenAI API expects a JSON payload, but what was sent was not valid JSON.)",
  },
  /** No key at all; a wrong one is invalid_api_key. */
  missing_api_key: {
    status: 401,
    type: 'invalid_request_error',
    code: null,
    message:
      "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY).",
  },
  invalid_api_key: {
    status: 401,
    type: 'invalid_request_error',
    code: 'invalid_api_key',
    message: 'Incorrect API key provided.',
  },
  unsupported_country_region_territory: {
    status: 403,
    type: 'request_forbidden',
    code: 'unsupported_country_region_territory',
    message: 'Country, region, or territory not supported',
  },
  unknown_url: { status: 404, type: 'invalid_request_error', code: null, message: 'Invalid URL.' },
  model_not_found: {
    status: 404,
    type: 'invalid_request_error',
    code: 'model_not_found',
    message: 'The model does not exist or you do not have access to it.',
  },
  rate_limit_exceeded: {
    status: 429,
    type: 'requests',
    code: 'rate_limit_exceeded',
    message: 'Rate limit reached for requests. Please try again later.',
  },
  /** The account is out of credit: a 429 that waiting does not cure. */
  insufficient_quota: {
    status: 429,
    type: 'insufficient_quota',
    code: 'insufficient_quota',
    message: 'You exceeded your current quota, please check your plan and billing details.',
  },
  server_error: {
    status: 500,
    type: 'server_error',
    code: null,
    message: 'The server had an error while processing your request. Sorry about that!',
  },
  /** Not in OPENAI_DOCS.errorCodes: the body OpenAI's edge answers when it cannot reach the API. */
  bad_gateway: { status: 502, type: 'cf_bad_gateway', code: null, message: 'Bad gateway.' },
  overloaded: {
    status: 503,
    type: 'server_error',
    code: null,
    message: 'The engine is currently overloaded, please try again later',
  },
} as const satisfies Record<string, OpenAiErrorRule>;

export type OpenAiErrorName = keyof typeof OPENAI_ERRORS;

/** The error a scripted failure answers when it gives only a status. */
export const OPENAI_ERROR_FOR_STATUS: Record<number, OpenAiErrorName> = {
  400: 'invalid_request',
  401: 'invalid_api_key',
  403: 'unsupported_country_region_territory',
  404: 'model_not_found',
  429: 'rate_limit_exceeded',
  500: 'server_error',
  502: 'bad_gateway',
  503: 'overloaded',
};

/**
 * Compatible mode's error answers that differ from OpenAI's by meaning, not shape (DASHSCOPE_ERROR_PAGES.zh,
 * "429-Throttling.AllocationQuota/insufficient_quota" and "429-Throttling.RateQuota/LimitRequests/limit_requests"):
 * its `insufficient_quota` is a TPS/TPM throttle unless the message is DASHSCOPE_ERROR_MESSAGES.freeQuotaExceeded.
 */
export const COMPATIBLE_ERRORS = {
  insufficient_quota: {
    status: 429,
    message: 'You exceeded your current quota, please check your plan and billing details.',
    page: DASHSCOPE_ERROR_PAGES.zh,
  },
  limit_requests: { status: 429, message: 'You exceeded your current requests list.', page: DASHSCOPE_ERROR_PAGES.zh },
} as const satisfies Record<string, DashScopeErrorRule>;

/** Compatible mode's error body: OpenAI's `error` object with DashScope's `id` and `request_id` beside it. */
export function compatibleErrorBody(code: string, message: string, requestId: string) {
  return { error: { message, type: code, param: null, code }, id: `chatcmpl-${requestId}`, request_id: requestId };
}

/**
 * The code compatible mode puts on a parameter it refuses, and the prefix of its message
 * ("<400> InternalError.Algo.InvalidParameter: Range of top_p should be (0.0, 1.0]").
 */
export const COMPATIBLE_INVALID_PARAMETER = {
  code: 'invalid_parameter_error',
  prefix: '<400> InternalError.Algo.InvalidParameter: ',
} as const;

/**
 * Latency the fake adds by default, [min, max] drawn per call, so timing-dependent code meets realistic delays:
 * scaled down from the hundreds of ms an embedding takes upstream and the seconds of a chat answer or an image
 * edit, to keep the suite fast. Tests and benches that need an instant upstream pass delayMs 0 (--latency-ms 0).
 */
export const OPENAI_DEFAULT_LATENCY_MS = {
  embeddings: [2, 8],
  chat: [10, 40],
  responses: [10, 40],
  imageEdit: [50, 150],
} as const satisfies Record<string, readonly [number, number]>;
