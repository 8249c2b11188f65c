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

/**
 * Error answers by code: HTTP status and the message DashScope sends (DASHSCOPE_DOCS.statusCodes). The body is
 * `{request_id, code, message}`; a few codes also come back on HTTP 200 from some endpoints, which is still a
 * failure.
 */
export const DASHSCOPE_ERRORS: Record<string, { status: number; message: string }> = {
  InvalidParameter: {
    status: 400,
    message: 'Required parameter(s) missing or invalid, please check the request parameters.',
  },
  DataInspectionFailed: { status: 400, message: 'Input or output data may contain inappropriate content.' },
  Arrearage: { status: 400, message: 'Access denied, please make sure your account is in good standing.' },
  BillOverdue: { status: 400, message: 'Access denied, the bill of your account is overdue.' },
  InvalidApiKey: { status: 401, message: 'Invalid API-key provided.' },
  AccessDenied: { status: 403, message: 'Access denied.' },
  'Model.AccessDenied': { status: 403, message: 'Model access denied.' },
  CommodityNotPurchased: { status: 403, message: 'Commodity has not purchased yet.' },
  'AllocationQuota.FreeTierOnly': {
    status: 403,
    message: 'The free tier of the model has been exhausted. Disable "use free tier only" to continue on a paid basis.',
  },
  ModelNotFound: { status: 404, message: 'Model not exist.' },
  RequestTimeOut: { status: 408, message: 'Request timed out, please try again later.' },
  'BadRequest.TooLarge': { status: 413, message: 'Payload Too Large' },
  UnsupportedMediaType: { status: 415, message: 'The request Content-Type is not supported; use application/json.' },
  Throttling: { status: 429, message: 'Requests throttling triggered.' },
  'Throttling.RateQuota': { status: 429, message: 'Requests rate limit exceeded, please try again later.' },
  'Throttling.AllocationQuota': { status: 429, message: 'Allocated quota exceeded, please increase your quota limit.' },
  InternalError: {
    status: 500,
    message: 'An internal error has occured, please try again later or contact service support.',
  },
  ModelUnavailable: { status: 503, message: 'Model is unavailable, please try again later.' },
};

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
  compatibleChat: 'Alibaba Cloud Model Studio: OpenAI compatible - Chat',
  compatibleEmbedding: 'Alibaba Cloud Model Studio: OpenAI compatible - Embedding',
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
  '/images/edits': 'multipart/form-data',
};

/**
 * Body fields by endpoint (OPENAI_DOCS.embeddings, .chat, .imageEdit), limited to those the gateway sends
 * (libs/providers/src/openai-compatible): any other is refused as OpenAI refuses an unknown one, so a gateway that
 * starts sending a documented field the fake has no rule for (`n`, `tools`, …) fails until its rule is added here.
 */
export const OPENAI_REQUEST_FIELDS = {
  embeddings: ['model', 'input', 'encoding_format', 'dimensions', 'user'],
  chat: ['model', 'messages', 'max_tokens', 'temperature', 'top_p', 'stop', 'seed', 'user', 'stream', 'stream_options'],
  chatMessage: ['role', 'content', 'name'],
  streamOptions: ['include_usage'],
  imageEdit: ['model', 'prompt', 'image', 'image[]', 'n', 'size', 'response_format'],
} as const;

/** Chat request rules (OPENAI_DOCS.chat unless noted). Intervals are written as the docs write them. */
export const OPENAI_CHAT_RULES = {
  /** `messages[].role`. */
  roles: ['developer', 'system', 'user', 'assistant', 'tool', 'function'],
  /** `stop`: "Up to 4 sequences". */
  maxStop: 4,
  /** `max_tokens`: a count of tokens to generate, so at least 1. */
  minMaxTokens: 1,
  sampling: {
    /** temperature "between 0 and 2"; top_p a probability mass, 0 to 1. */
    openai: { temperature: '[0, 2]', top_p: '[0, 1]' },
    /** OPENAI_DOCS.compatibleChat: temperature "[0, 2)", top_p "(0, 1.0]". */
    compatible: { temperature: '[0, 2)', top_p: '(0, 1]' },
  },
} as const;

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
  chat: ['id', 'object', 'created', 'model', 'choices', 'usage', 'system_fingerprint'],
  chatChoice: ['index', 'message', 'finish_reason', 'logprobs'],
  chatMessage: ['role', 'content'],
  chatUsage: ['prompt_tokens', 'completion_tokens', 'total_tokens'],
  /** `usage` only with stream_options.include_usage: null on every chunk but the last. */
  chunk: ['id', 'object', 'created', 'model', 'choices', 'usage', 'system_fingerprint'],
  chunkChoice: ['index', 'delta', 'finish_reason', 'logprobs'],
  chunkDelta: ['role', 'content'],
  imageEdit: ['created', 'data'],
  image: ['b64_json', 'url', 'revised_prompt'],
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
  imageEdit: [50, 150],
} as const satisfies Record<string, readonly [number, number]>;
