import { randomBytes, randomInt } from 'node:crypto';
import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import sharp from 'sharp';
import { Response } from 'undici';
import {
  COMPATIBLE_INVALID_PARAMETER,
  COMPATIBLE_MODE_MODELS,
  COMPATIBLE_MODE_PATH,
  OPENAI_ANSWER_FIELDS,
  OPENAI_CHARS_PER_TOKEN,
  OPENAI_CHAT_RULES,
  OPENAI_CONTENT_TYPES,
  OPENAI_DEFAULT_LATENCY_MS,
  OPENAI_EMBEDDING_LIMITS,
  OPENAI_EMBEDDING_MODELS,
  OPENAI_ERROR_FOR_STATUS,
  OPENAI_ERRORS,
  OPENAI_REQUEST_FIELDS,
  OPENAI_REQUEST_ID_HEADER,
  OPENAI_TEST_EMBEDDING_MODEL,
  OpenAiDialect,
  OpenAiEmbeddingModel,
  OpenAiErrorName,
} from './upstream-rules';

/**
 * A scripted failure: the next `times` calls answer an error (or drop the connection) instead of succeeding. The
 * error is `error` (`insufficient_quota`, `overloaded`, …), else the one OpenAI sends for `status` (500 by default);
 * `body` replaces its body.
 */
export interface ScriptedFailure {
  times: number;
  status?: number;
  error?: OpenAiErrorName;
  body?: unknown;
  dropConnection?: boolean;
}

export interface FakeOptions {
  /** Delay before answering each call, in ms; 0 answers at once. Default: OPENAI_DEFAULT_LATENCY_MS, with jitter. */
  delayMs?: number;
  /** Vector length when the request carries no `dimensions`; default: the model's (1024 for test-only names). */
  nativeDimensions?: number;
  /** Honour `dimensions` (OpenAI text-embedding-3 style) or always return the native length. */
  honoursDimensions?: boolean;
  /** Bearer key the fake requires, if any. */
  apiKey?: string;
  /** Models the account can use; any other is 404 model_not_found. Default: every model. */
  models?: string[];
  /** Fixed chat answer; by default the fake echoes the last user message. */
  chatReply?: string;
  /** Pause between streamed chat chunks, in ms. */
  streamChunkDelayMs?: number;
  /** Answer image edits with a `url` to the file instead of `b64_json`, as some compatible servers do. */
  imagesAsUrl?: boolean;
}

/** One file part of a multipart image edit, as the fake received it. */
export interface ReceivedImage {
  /** `image` or `image[]`. */
  field: string;
  filename: string;
  mime: string;
  bytes: number;
  /** Absent when the part does not decode as an image. */
  width?: number;
  height?: number;
}

/** A request body as the fake records it: the JSON object sent, or a multipart edit's text fields and `images`. */
export type RecordedBody = Record<string, unknown>;

/** The bodies the fake reads, once checked against OPENAI_REQUEST_FIELDS and the endpoint's rules. */
type EmbeddingsRequest = {
  model: string;
  input: string | string[];
  dimensions?: number;
};

type ChatRequest = {
  model: string;
  messages: { role: string; content: string }[];
  stream?: boolean;
  stream_options?: { include_usage?: boolean };
};

/** Multipart: every text field arrives as a string. */
type ImageEditRequest = {
  model?: string;
  prompt?: string;
  n?: string;
  size?: string;
  response_format?: string;
};

type Endpoint = keyof typeof OPENAI_DEFAULT_LATENCY_MS;

const ENDPOINTS: Record<string, Endpoint> = {
  '/embeddings': 'embeddings',
  '/chat/completions': 'chat',
  '/images/edits': 'imageEdit',
};

/** A value as an error message quotes it: a string as is, anything else as JSON. */
function shown(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** An error answer, thrown by a check and sent as OpenAI's `{"error":{message,type,param,code}}`. */
class Refusal extends Error {
  constructor(
    readonly status: number,
    readonly error: { message: string; type: string; param: string | null; code: string | null },
  ) {
    super(error.message);
  }
}

/**
 * OpenAI's API over real HTTP, and DashScope's OpenAI-compatible mode (its models, or any path under
 * /compatible-mode/v1): POST /v1/embeddings, /v1/chat/completions and /v1/images/edits (multipart). It enforces the
 * documented rules in upstream-rules.ts (OPENAI_*): media types, the fields the gateway may send, value ranges per
 * model, a key when `apiKey` is set, a model list when `models` is set. It answers with the documented fields only,
 * OpenAI's error bodies and an `x-request-id`, after a realistic delay unless `delayMs` says otherwise; scripted
 * failures come before any check. Embeddings are deterministic per text so tests can compare runs; image edits are
 * real PNGs. An image edit's recorded `body` holds its text fields plus `images: ReceivedImage[]`.
 */
export class OpenAiFake {
  readonly calls: { path: string; body: RecordedBody; at: number }[] = [];
  /** Streamed chat answers: content chunks planned and sent, and whether the client left before the end. */
  readonly streamed: { total: number; sent: number; closedEarly: boolean }[] = [];
  inFlight = 0;
  maxInFlight = 0;
  private server?: Server;
  private failures: ScriptedFailure[] = [];
  /** Generated images served at /v1/files/<id>.png when answering with URLs. */
  private readonly files = new Map<string, Buffer>();

  constructor(private readonly options: FakeOptions = {}) {}

  /** OpenAI's base URL, …/v1. */
  get baseUrl(): string {
    return `${this.rootUrl}/v1`;
  }

  /** The server's root: compatible mode is served under it at /compatible-mode/v1, as a route's base_path adds. */
  get rootUrl(): string {
    return `http://127.0.0.1:${(this.server!.address() as AddressInfo).port}`;
  }

  /** A fixed delay for every call (0: at once); without `ms`, the realistic default again. */
  setDelay(ms?: number): void {
    this.options.delayMs = ms;
  }

  failNext(failure: ScriptedFailure): void {
    this.failures.push({ ...failure });
  }

  reset(): void {
    this.calls.length = 0;
    this.streamed.length = 0;
    this.failures = [];
    this.maxInFlight = 0;
    this.files.clear();
  }

  async start(port = 0): Promise<this> {
    this.server = createServer((req, res) => void this.handle(req, res));
    this.server.keepAliveTimeout = 60_000;
    await new Promise<void>((resolve) => this.server!.listen(port, '127.0.0.1', resolve));
    return this;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()) ?? resolve());
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const path = (req.url ?? '').split('?')[0];
    res.setHeader(OPENAI_REQUEST_ID_HEADER, `req_${randomBytes(16).toString('hex')}`);
    if (req.method === 'GET' && path.startsWith('/v1/files/')) return this.serveFile(path, res);
    const compatiblePath = path.startsWith(`${COMPATIBLE_MODE_PATH}/`);
    const route = path.slice(compatiblePath ? COMPATIBLE_MODE_PATH.length : '/v1'.length);
    const endpoint = path.startsWith('/v1/') || compatiblePath ? ENDPOINTS[route] : undefined;
    const contentType = String(req.headers['content-type'] ?? '');
    const parsed = await readBody(Buffer.concat(chunks), contentType);
    const call = { path, body: parsed instanceof Refusal ? {} : parsed.body, at: Date.now() };
    this.calls.push(call);
    this.inFlight++;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    try {
      const delay = this.delayOf(endpoint);
      if (delay) await new Promise((r) => setTimeout(r, delay));
      this.checkKey(req.headers.authorization);
      const failure = this.failures[0];
      if (failure) {
        if (--failure.times <= 0) this.failures.shift();
        if (failure.dropConnection) return void req.socket.destroy();
        return this.sendFailure(res, failure);
      }
      if (req.method !== 'POST' || !endpoint) {
        throw refusal('unknown_url', `Invalid URL (${req.method} ${path})`);
      }
      checkContentType(contentType, OPENAI_CONTENT_TYPES[route]);
      if (parsed instanceof Refusal) throw parsed;
      const { body, files } = parsed;
      this.checkModel(body, endpoint);
      const dialect: OpenAiDialect =
        compatiblePath || COMPATIBLE_MODE_MODELS.test(typeof body.model === 'string' ? body.model : '')
          ? 'compatible'
          : 'openai';
      if (endpoint === 'embeddings') return send(res, 200, this.embeddings(checkEmbeddings(body, dialect)));
      if (endpoint === 'chat') {
        const request = checkChat(body, dialect);
        if (request.stream) return await this.chatStream(request, res);
        return send(res, 200, this.chat(request));
      }
      return send(res, 200, await this.imageEdit(checkImageEdit(body, files), files));
    } catch (error) {
      if (res.headersSent) return void res.destroy();
      if (error instanceof Refusal) return send(res, error.status, { error: error.error });
      // A bug of the fake (an undocumented answer field, say): loud, never a hang.
      return send(res, 500, { error: { message: `openai-fake: ${(error as Error).message}`, type: 'fake_error' } });
    } finally {
      this.inFlight--;
    }
  }

  private delayOf(endpoint: Endpoint | undefined): number {
    if (this.options.delayMs !== undefined) return this.options.delayMs;
    if (!endpoint) return 0;
    const [min, max] = OPENAI_DEFAULT_LATENCY_MS[endpoint];
    return randomInt(min, max + 1);
  }

  /** A missing key and a wrong one answer differently; the wrong one is echoed masked, as OpenAI does. */
  private checkKey(authorization: string | undefined): void {
    if (!this.options.apiKey) return;
    if (!authorization?.startsWith('Bearer ')) throw refusal('missing_api_key');
    const sent = authorization.slice('Bearer '.length);
    if (sent === this.options.apiKey) return;
    const masked = `${sent.slice(0, 3)}***${sent.slice(-4)}`;
    throw refusal(
      'invalid_api_key',
      `Incorrect API key provided: ${masked}. You can find your API key at https://platform.openai.com/account/api-keys.`,
    );
  }

  private sendFailure(res: ServerResponse, failure: ScriptedFailure): void {
    const name = failure.error ?? OPENAI_ERROR_FOR_STATUS[failure.status ?? 500] ?? 'server_error';
    const rule = OPENAI_ERRORS[name];
    const status = failure.status ?? rule.status;
    const body = failure.body ?? { error: { message: rule.message, type: rule.type, param: null, code: rule.code } };
    // Retry-After 0: a client retries after its own backoff. Out of credit is not cured by waiting.
    const retryable = status === 429 && name !== 'insufficient_quota';
    send(res, status, body, retryable ? { 'retry-after': '0' } : {});
  }

  /** `model` is required; with a model list, one outside it does not exist for this account. */
  private checkModel(body: RecordedBody, endpoint: Endpoint): void {
    if (endpoint === 'imageEdit' && body.model === undefined) return; // dall-e-2 by default
    if (typeof body.model !== 'string' || body.model === '') throw invalid('you must provide a model parameter');
    if (this.options.models && !this.options.models.includes(body.model)) {
      throw refusal(
        'model_not_found',
        `The model \`${body.model}\` does not exist or you do not have access to it.`,
        endpoint === 'imageEdit' ? 'model' : null,
      );
    }
  }

  private embeddings(body: EmbeddingsRequest) {
    const inputs: string[] = typeof body.input === 'string' ? [body.input] : body.input;
    const native = this.options.nativeDimensions ?? embeddingModel(body.model).nativeDimensions;
    const length = this.options.honoursDimensions !== false && body.dimensions ? body.dimensions : native;
    const tokens = inputs.reduce((sum, text) => sum + tokensOf(text), 0);
    return documented('embeddings', {
      object: 'list',
      data: inputs.map((text, index) =>
        documented('embedding', { object: 'embedding', index, embedding: fakeVector(text, length) }),
      ),
      model: body.model,
      usage: documented('embeddingsUsage', { prompt_tokens: tokens, total_tokens: tokens }),
    });
  }

  private chat(body: ChatRequest) {
    const lastUser = [...body.messages].reverse().find((m) => m.role === 'user')?.content ?? '';
    const content = this.options.chatReply ?? `echo: ${lastUser}`;
    const promptTokens = body.messages.reduce((sum, m) => sum + tokensOf(String(m.content)), 0);
    const completionTokens = tokensOf(content);
    return documented('chat', {
      id: `chatcmpl-fake${this.calls.length}`,
      object: 'chat.completion',
      created: Math.floor(Date.now() / 1000),
      model: body.model,
      choices: [
        documented('chatChoice', {
          index: 0,
          message: documented('chatMessage', { role: 'assistant', content }),
          logprobs: null,
          finish_reason: 'stop',
        }),
      ],
      usage: documented('chatUsage', {
        prompt_tokens: promptTokens,
        completion_tokens: completionTokens,
        total_tokens: promptTokens + completionTokens,
      }),
    });
  }

  /**
   * OpenAI's streamed chat: SSE `chat.completion.chunk` events (the role, then the answer word by word, then the
   * finish reason), with `usage: null` on each and a final usage chunk when `stream_options.include_usage` is set,
   * then `data: [DONE]`. Records how many content chunks went out before the client hung up, in `streamed`.
   */
  private async chatStream(body: ChatRequest, res: ServerResponse): Promise<void> {
    const whole = this.chat(body);
    const withUsage = body.stream_options?.include_usage === true;
    const chunk = (choices: unknown[], usage: unknown = null) =>
      documented('chunk', {
        id: whole.id,
        object: 'chat.completion.chunk',
        created: whole.created,
        model: body.model,
        choices,
        ...(withUsage ? { usage } : {}),
      });
    const choice = (delta: object, finishReason: string | null) =>
      documented('chunkChoice', {
        index: 0,
        delta: documented('chunkDelta', delta),
        logprobs: null,
        finish_reason: finishReason,
      });
    const pieces = whole.choices[0].message.content.split(/(?<= )/);
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    const event = (data: unknown) => res.write(`data: ${JSON.stringify(data)}\n\n`);
    const record = { total: pieces.length, sent: 0, closedEarly: false };
    this.streamed.push(record);
    res.once('close', () => (record.closedEarly = !res.writableFinished));
    event(chunk([choice({ role: 'assistant', content: '' }, null)]));
    for (const piece of pieces) {
      if (res.destroyed) return;
      if (this.options.streamChunkDelayMs) await new Promise((r) => setTimeout(r, this.options.streamChunkDelayMs));
      if (res.destroyed) return;
      event(chunk([choice({ content: piece }, null)]));
      record.sent++;
    }
    event(chunk([choice({}, 'stop')]));
    if (withUsage) event(chunk([], whole.usage));
    res.end('data: [DONE]\n\n');
  }

  /** Edits the last image: resized to `size` (default 1024x1024), tinted per prompt. */
  private async imageEdit(body: ImageEditRequest, parts: ReceivedFile[]) {
    const files = parts.filter((part) => part.field === 'image' || part.field === 'image[]');
    const size = /^(\d+)x(\d+)$/.exec(body.size ?? '1024x1024');
    const [width, height] = size ? [Number(size[1]), Number(size[2])] : [1024, 1024];
    const last = files[files.length - 1].data;
    const data = await Promise.all(
      Array.from({ length: body.n === undefined ? 1 : Number(body.n) }, async (_, i) => {
        const png = await renderFakeEdit(last, width, height, textSeed(body.prompt!) + i);
        return documented('image', { ...this.imageAnswer(png), revised_prompt: `revised: ${body.prompt}` });
      }),
    );
    return documented('imageEdit', { created: Math.floor(Date.now() / 1000), data });
  }

  private imageAnswer(png: Buffer): { b64_json: string } | { url: string } {
    if (!this.options.imagesAsUrl) return { b64_json: png.toString('base64') };
    const id = randomBytes(8).toString('hex');
    this.files.set(id, png);
    return { url: `${this.baseUrl}/files/${id}.png` };
  }

  private serveFile(path: string, res: ServerResponse): void {
    const file = this.files.get(path.slice('/v1/files/'.length).replace(/\.png$/, ''));
    if (!file) return send(res, 404, { error: { ...errorOf('unknown_url', 'file not found'), param: null } });
    res.writeHead(200, { 'content-type': 'image/png', 'content-length': file.length });
    res.end(file);
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Request checks, in the order the API applies them; each throws the Refusal OpenAI (or compatible mode) answers.

/** OPENAI_CONTENT_TYPES: the media type, parameters such as `charset` or `boundary` aside. */
function checkContentType(sent: string, expected: string): void {
  if (sent.split(';')[0].trim().toLowerCase() === expected) return;
  throw refusal(
    'unsupported_content_type',
    `Unsupported content type: '${sent}'. This API method only accepts '${expected}' requests, but you specified the header 'Content-Type: ${sent}'. Please try again with a supported content type.`,
  );
}

/** Fields outside OPENAI_REQUEST_FIELDS, named as OpenAI names them. */
function checkFields(names: string[], allowed: readonly string[]): void {
  const unknown = names.filter((name) => !allowed.includes(name));
  if (unknown.length === 0) return;
  throw refusal(
    'unrecognized_argument',
    unknown.length === 1
      ? `Unrecognized request argument supplied: ${unknown[0]}`
      : `Unrecognized request arguments supplied: ${unknown.join(', ')}`,
  );
}

function checkChat(body: RecordedBody, dialect: OpenAiDialect): ChatRequest {
  checkFields(Object.keys(body), OPENAI_REQUEST_FIELDS.chat);
  const { messages } = body;
  if (messages === undefined) throw missing('messages');
  if (!Array.isArray(messages)) throw wrongType('messages', 'an array', messages);
  if (messages.length === 0) {
    throw invalid(
      "Invalid 'messages': empty array. Expected an array with minimum length 1, but got an empty array instead.",
      'messages',
      'empty_array',
    );
  }
  messages.forEach((message: unknown, i) => checkMessage(message, `messages[${i}]`));
  for (const param of ['temperature', 'top_p'] as const) {
    if (body[param] === undefined) continue;
    if (typeof body[param] !== 'number') throw wrongType(param, 'a decimal', body[param]);
    checkInterval(param, body[param], OPENAI_CHAT_RULES.sampling[dialect][param], dialect);
  }
  if (body.max_tokens !== undefined) {
    if (!Number.isInteger(body.max_tokens)) throw wrongType('max_tokens', 'an integer', body.max_tokens);
    if ((body.max_tokens as number) < OPENAI_CHAT_RULES.minMaxTokens) {
      throw invalid(
        `Invalid 'max_tokens': integer below minimum value. Expected a value >= ${OPENAI_CHAT_RULES.minMaxTokens}, but got ${shown(body.max_tokens)} instead.`,
        'max_tokens',
        'integer_below_min_value',
      );
    }
  }
  checkStop(body.stop);
  if (body.seed !== undefined && !Number.isInteger(body.seed)) throw wrongType('seed', 'an integer', body.seed);
  if (body.user !== undefined && typeof body.user !== 'string') throw wrongType('user', 'a string', body.user);
  if (body.stream !== undefined && typeof body.stream !== 'boolean')
    throw wrongType('stream', 'a boolean', body.stream);
  if (body.stream_options !== undefined) checkStreamOptions(body.stream_options, body.stream === true);
  return body as ChatRequest;
}

function checkMessage(message: unknown, at: string): void {
  if (!isObject(message)) throw wrongType(at, 'an object', message);
  const extra = Object.keys(message).find(
    (key) => !(OPENAI_REQUEST_FIELDS.chatMessage as readonly string[]).includes(key),
  );
  if (extra) throw invalid(`Unknown parameter: '${at}.${extra}'.`, `${at}.${extra}`, 'unknown_parameter');
  if (message.role === undefined) throw missing(`${at}.role`);
  if (!(OPENAI_CHAT_RULES.roles as readonly unknown[]).includes(message.role)) {
    const supported = OPENAI_CHAT_RULES.roles.map((role) => `'${role}'`);
    throw invalid(
      `Invalid value: '${shown(message.role)}'. Supported values are: ${supported.slice(0, -1).join(', ')}, and ${supported.at(-1)}.`,
      `${at}.role`,
      'invalid_value',
    );
  }
  // An assistant turn may carry tool calls instead of content; every other turn has content.
  if (message.content === undefined && message.role !== 'assistant') throw missing(`${at}.content`);
  if (message.content !== undefined && typeof message.content !== 'string' && !Array.isArray(message.content)) {
    throw wrongType(`${at}.content`, 'one of a string or array of objects', message.content);
  }
  if (message.name !== undefined && typeof message.name !== 'string') {
    throw wrongType(`${at}.name`, 'a string', message.name);
  }
}

/** OPENAI_CHAT_RULES.sampling: OpenAI words a value out of range its way, compatible mode its own. */
function checkInterval(param: string, value: number, interval: string, dialect: OpenAiDialect): void {
  const [, open, low, high, close] = /^([[(])(-?[\d.]+), (-?[\d.]+)([\])])$/.exec(interval)!;
  const [min, max] = [Number(low), Number(high)];
  const tooLow = open === '[' ? value < min : value <= min;
  const tooHigh = close === ']' ? value > max : value >= max;
  if (!tooLow && !tooHigh) return;
  if (dialect === 'compatible') {
    throw compatibleInvalid(`Range of ${param} should be ${open}${min.toFixed(1)}, ${max.toFixed(1)}${close}`);
  }
  throw invalid(
    tooHigh
      ? `Invalid '${param}': decimal above maximum value. Expected a value <= ${max}, but got ${value} instead.`
      : `Invalid '${param}': decimal below minimum value. Expected a value >= ${min}, but got ${value} instead.`,
    param,
    tooHigh ? 'decimal_above_max_value' : 'decimal_below_min_value',
  );
}

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
  if (extra)
    throw invalid(`Unknown parameter: 'stream_options.${extra}'.`, `stream_options.${extra}`, 'unknown_parameter');
  if (options.include_usage !== undefined && typeof options.include_usage !== 'boolean') {
    throw wrongType('stream_options.include_usage', 'a boolean', options.include_usage);
  }
}

/** The model's documented limits, or OPENAI_TEST_EMBEDDING_MODEL's for a test-only name. */
function embeddingModel(model: string): OpenAiEmbeddingModel {
  return OPENAI_EMBEDDING_MODELS[model] ?? OPENAI_TEST_EMBEDDING_MODEL;
}

function checkEmbeddings(body: RecordedBody, dialect: OpenAiDialect): EmbeddingsRequest {
  checkFields(Object.keys(body), OPENAI_REQUEST_FIELDS.embeddings);
  const model = embeddingModel(body.model as string);
  if (body.input === undefined) throw missing('input');
  // Token arrays are documented too, but the gateway sends text only: the fake takes text only.
  const inputs = typeof body.input === 'string' ? [body.input] : body.input;
  const text = Array.isArray(inputs) && inputs.every((item) => typeof item === 'string' && item !== '');
  if (!text || inputs.length === 0 || inputs.length > OPENAI_EMBEDDING_LIMITS.maxInputs) {
    throw invalid(
      "'$.input' is invalid. Please check the API reference: https://platform.openai.com/docs/api-reference.",
    );
  }
  // Only compatible mode's models take fewer than the API-wide maximum.
  if (inputs.length > model.maxInputs) {
    throw compatibleInvalid(`batch size is invalid, it should not be larger than ${model.maxInputs}.`);
  }
  const tokens = (inputs as string[]).map(tokensOf);
  const longest = Math.max(...tokens);
  if (longest > model.maxInputTokens) {
    if (dialect === 'compatible')
      throw compatibleInvalid(`Range of input length should be [1, ${model.maxInputTokens}]`);
    throw invalid(
      `This model's maximum context length is ${model.maxInputTokens} tokens, however you requested ${longest} tokens (${longest} in your prompt; 0 for the completion). Please reduce your prompt; or completion length.`,
    );
  }
  const total = tokens.reduce((sum, count) => sum + count, 0);
  if (dialect === 'openai' && total > OPENAI_EMBEDDING_LIMITS.maxRequestTokens) {
    throw invalid(`Requested ${total} tokens, max ${OPENAI_EMBEDDING_LIMITS.maxRequestTokens} tokens per request`);
  }
  const encodings: readonly unknown[] = OPENAI_EMBEDDING_LIMITS.encodings;
  if (body.encoding_format !== undefined && !encodings.includes(body.encoding_format)) {
    throw invalid(
      `Invalid value: '${shown(body.encoding_format)}'. Supported values are: ${encodings.map((e) => `'${String(e)}'`).join(' and ')}.`,
      'encoding_format',
      'invalid_value',
    );
  }
  if (body.dimensions !== undefined) checkDimensions(body.dimensions, model, body.model as string);
  if (body.user !== undefined && typeof body.user !== 'string') throw wrongType('user', 'a string', body.user);
  return body as EmbeddingsRequest;
}

function checkDimensions(dimensions: unknown, model: OpenAiEmbeddingModel, name: string): void {
  if (!Number.isInteger(dimensions)) throw wrongType('dimensions', 'an integer', dimensions);
  const value = dimensions as number;
  if (model.dimensions === 'none') throw invalid('This model does not support specifying dimensions.');
  if (Array.isArray(model.dimensions)) {
    if (model.dimensions.includes(value)) return;
    throw compatibleInvalid(`dimensions should be one of ${model.dimensions.join(', ')} for ${name}, but got ${value}`);
  }
  const { upTo } = model.dimensions as { upTo: number };
  if (value < 1 || value > upTo) {
    throw invalid(
      value < 1
        ? `Invalid 'dimensions': integer below minimum value. Expected a value >= 1, but got ${value} instead.`
        : `Invalid 'dimensions': integer above maximum value. Expected a value <= ${upTo}, but got ${value} instead.`,
      'dimensions',
      value < 1 ? 'integer_below_min_value' : 'integer_above_max_value',
    );
  }
}

/** OpenAI's edit endpoint: required fields, known fields, their values, images that decode. */
function checkImageEdit(body: RecordedBody, files: ReceivedFile[]): ImageEditRequest {
  checkFields(
    [...Object.keys(body).filter((key) => key !== 'images'), ...files.map((file) => file.field)],
    OPENAI_REQUEST_FIELDS.imageEdit,
  );
  const request = body as ImageEditRequest;
  const images = files.filter((part) => part.field === 'image' || part.field === 'image[]');
  if (!request.prompt) throw missing('prompt');
  if (images.length === 0) throw missing('image');
  if (String(request.model ?? '').startsWith('gpt-image') && request.response_format !== undefined) {
    throw invalid("Unknown parameter: 'response_format'.", 'response_format', 'unknown_parameter');
  }
  if (request.response_format !== undefined && !['url', 'b64_json'].includes(request.response_format)) {
    throw invalid(
      `Invalid value: '${request.response_format}'. Supported values are: 'url' and 'b64_json'.`,
      'response_format',
      'invalid_value',
    );
  }
  const n = request.n === undefined ? 1 : Number(request.n);
  if (!Number.isInteger(n) || n < 1 || n > 10)
    throw invalid(`Invalid value for 'n': ${request.n}.`, 'n', 'invalid_value');
  if (request.size !== undefined && request.size !== 'auto' && !/^\d+x\d+$/.test(request.size)) {
    throw invalid(`Invalid value: '${request.size}'.`, 'size', 'invalid_value');
  }
  const undecodable = images.findIndex((file) => file.width === undefined);
  if (undecodable >= 0) {
    throw invalid(
      `Invalid image file or mode for image ${undecodable + 1}, please check your image file.`,
      'image',
      'invalid_image_file',
    );
  }
  return request;
}

// ---------------------------------------------------------------------------------------------------------------

function errorOf(name: OpenAiErrorName, message?: string) {
  const rule = OPENAI_ERRORS[name];
  return { message: message ?? rule.message, type: rule.type, code: rule.code };
}

function refusal(name: OpenAiErrorName, message?: string, param: string | null = null): Refusal {
  return new Refusal(OPENAI_ERRORS[name].status, { ...errorOf(name, message), param });
}

function invalid(message: string, param: string | null = null, code: string | null = null): Refusal {
  return new Refusal(400, { message, type: 'invalid_request_error', param, code });
}

function missing(param: string): Refusal {
  return invalid(`Missing required parameter: '${param}'.`, param, 'missing_required_parameter');
}

function wrongType(param: string, expected: string, value: unknown): Refusal {
  const got = Array.isArray(value) ? 'an array' : value === null ? 'null' : `a ${typeof value}`;
  return invalid(`Invalid type for '${param}': expected ${expected}, but got ${got} instead.`, param, 'invalid_type');
}

/** Compatible mode's refusal of a parameter (COMPATIBLE_INVALID_PARAMETER); OpenAI's own limits are wider. */
function compatibleInvalid(message: string): Refusal {
  return new Refusal(400, {
    message: `${COMPATIBLE_INVALID_PARAMETER.prefix}${message}`,
    type: 'invalid_request_error',
    param: null,
    code: COMPATIBLE_INVALID_PARAMETER.code,
  });
}

/** An answer object, checked against OPENAI_ANSWER_FIELDS so the fake never sends an undocumented field. */
function documented<T extends object>(kind: keyof typeof OPENAI_ANSWER_FIELDS, value: T): T {
  const allowed: readonly string[] = OPENAI_ANSWER_FIELDS[kind];
  const extra = Object.keys(value).filter((key) => !allowed.includes(key));
  if (extra.length) throw new Error(`undocumented ${kind} field(s): ${extra.join(', ')}`);
  return value;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function tokensOf(text: string): number {
  return Math.ceil(text.length / OPENAI_CHARS_PER_TOKEN);
}

interface ReceivedFile {
  field: string;
  data: Buffer;
  width?: number;
}

/**
 * The body by its declared media type: a multipart form (undici's own parser; text fields plus a summary of each
 * image) or a JSON object. What does not parse is the Refusal OpenAI answers, kept until the checks reach it.
 */
async function readBody(
  raw: Buffer,
  contentType: string,
): Promise<{ body: RecordedBody; files: ReceivedFile[] } | Refusal> {
  if (contentType.startsWith('multipart/form-data')) {
    try {
      return await readMultipart(raw, contentType);
    } catch {
      return invalid('Could not parse multipart form.');
    }
  }
  try {
    const body: unknown = JSON.parse(raw.toString('utf8'));
    if (isObject(body)) return { body, files: [] };
  } catch {
    // answered below
  }
  return refusal('invalid_json');
}

async function readMultipart(raw: Buffer, contentType: string): Promise<{ body: RecordedBody; files: ReceivedFile[] }> {
  const form = await new Response(raw, { headers: { 'content-type': contentType } }).formData();
  const body: RecordedBody = {};
  const files: ReceivedFile[] = [];
  const images: ReceivedImage[] = [];
  for (const [field, value] of form.entries()) {
    if (typeof value === 'string') {
      body[field] = value;
      continue;
    }
    const data = Buffer.from(await value.arrayBuffer());
    const meta = await sharp(data)
      .metadata()
      .catch(() => undefined);
    files.push({ field, data, width: meta?.width });
    images.push({
      field,
      filename: value.name,
      mime: value.type,
      bytes: data.length,
      width: meta?.width,
      height: meta?.height,
    });
  }
  body.images = images;
  return { body, files };
}

/**
 * The fakes' stand-in for an edit: `input` resized to width×height under a translucent tint chosen by `seed`,
 * so outputs are real PNGs, differ between seeds and are identical for the same seed.
 */
export async function renderFakeEdit(input: Buffer, width: number, height: number, seed: number): Promise<Buffer> {
  const mixed = Math.imul(seed ^ 0x9e3779b9, 2654435761) >>> 0;
  const tint = { r: mixed & 255, g: (mixed >>> 8) & 255, b: (mixed >>> 16) & 255, alpha: 0.35 };
  return sharp(input)
    .resize(width, height, { fit: 'fill' })
    .composite([{ input: { create: { width, height, channels: 4, background: tint } } }])
    .png()
    .toBuffer();
}

/** FNV-1a over the text's code points. */
function textSeed(text: string): number {
  let seed = 2166136261;
  for (const ch of text) seed = Math.imul(seed ^ ch.codePointAt(0)!, 16777619) >>> 0;
  return seed;
}

/** A deterministic unit vector per text (float32-exact values so base64 round trips compare equal). */
export function fakeVector(text: string, length: number): number[] {
  const seed = textSeed(text);
  const raw = Array.from({ length }, (_, i) => Math.fround(Math.sin(seed + i * 7.1)));
  const norm = Math.sqrt(raw.reduce((s, x) => s + x * x, 0));
  return raw.map((x) => Math.fround(x / norm));
}

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

// `node openai-fake.js --port N [--latency-ms M]` runs it standalone (benchmarks, manual tries). --latency-ms holds
// every answer that long: 0 for an instant upstream, bench:held's slow one; without it, the realistic default.
if (require.main === module) {
  const { values } = parseArgs({
    options: { port: { type: 'string', default: '0' }, 'latency-ms': { type: 'string' } },
  });
  const port = Number(values.port);
  const delayMs = values['latency-ms'] === undefined ? undefined : Number(values['latency-ms']);
  if (!Number.isInteger(port) || (delayMs !== undefined && (!Number.isInteger(delayMs) || delayMs < 0))) {
    process.stderr.write('usage: openai-fake.ts [--port N] [--latency-ms M]\n');
    process.exit(2);
  }
  void new OpenAiFake({ delayMs }).start(port).then((fake) => process.stdout.write(`${fake.baseUrl}\n`));
}
