import { randomBytes, randomInt } from 'node:crypto';
import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import sharp from 'sharp';
import { Response } from 'undici';
import { chatChunks, chatCompletion } from './openai-chat';
import { ChatRequest, checkChat } from './openai-chat-request';
import { responseEvents, responseOf } from './openai-responses';
import { checkResponses, ResponsesRequest } from './openai-responses-request';
import {
  compatibleInvalid,
  errorOf,
  invalid,
  isObject,
  missing,
  refusal,
  Refusal,
  shown,
  wrongType,
} from './openai-errors';
import { documented, tokensOf } from './openai-shapes';
import {
  COMPATIBLE_MODE_MODELS,
  COMPATIBLE_MODE_PATH,
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
  /**
   * Report this many times the tokens counted in chat and embeddings answers' `usage` (rounded), as an upstream whose
   * bill runs above what it served. Default 1.
   */
  overReport?: number;
  /**
   * State each chat and embeddings answer's cost in `usage.cost`, at this price per 1,000 reported tokens, as
   * OpenRouter does (https://openrouter.ai/docs/use-cases/usage-accounting); OpenAI states none.
   */
  costPer1kTokens?: number;
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
  '/responses': 'responses',
  '/images/edits': 'imageEdit',
};

/**
 * OpenAI's API over real HTTP, and DashScope's OpenAI-compatible mode (its models, or any path under
 * /compatible-mode/v1): POST /v1/embeddings, /v1/chat/completions and /v1/images/edits (multipart). It enforces the
 * documented rules in upstream-rules.ts (OPENAI_*): media types, the fields each endpoint takes, value ranges per
 * model, a key when `apiKey` is set, a model list when `models` is set. Chat takes the whole Chat Completions request
 * as OpenAI documents it (openai-chat-request.ts) and answers tools, structured output, `n` and `logprobs`
 * deterministically (openai-chat.ts). It answers with the documented fields only, OpenAI's error bodies and an
 * `x-request-id`, after a realistic delay unless `delayMs` says otherwise; scripted failures come before any check.
 * Embeddings are deterministic per text so tests can compare runs; image edits are real PNGs. An image edit's
 * recorded `body` holds its text fields plus `images: ReceivedImage[]`.
 */
export class OpenAiFake {
  /** Each call received, with its headers and the `x-request-id` it was answered with. */
  readonly calls: {
    path: string;
    body: RecordedBody;
    at: number;
    requestId: string;
    headers: IncomingMessage['headers'];
  }[] = [];
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
    const requestId = `req_${randomBytes(16).toString('hex')}`;
    res.setHeader(OPENAI_REQUEST_ID_HEADER, requestId);
    if (req.method === 'GET' && path.startsWith('/v1/files/')) return this.serveFile(path, res);
    const compatiblePath = path.startsWith(`${COMPATIBLE_MODE_PATH}/`);
    const route = path.slice(compatiblePath ? COMPATIBLE_MODE_PATH.length : '/v1'.length);
    const endpoint = path.startsWith('/v1/') || compatiblePath ? ENDPOINTS[route] : undefined;
    const contentType = String(req.headers['content-type'] ?? '');
    const parsed = await readBody(Buffer.concat(chunks), contentType);
    const call = {
      path,
      body: parsed instanceof Refusal ? {} : parsed.body,
      at: Date.now(),
      requestId,
      headers: req.headers,
    };
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
        if (request.stream) return await this.chatStream(request, dialect, res);
        return send(res, 200, this.chat(request, dialect));
      }
      if (endpoint === 'responses') {
        // Compatible mode's Responses endpoint lives elsewhere (…/api/v2/apps/protocols/compatible-mode/v1).
        if (dialect === 'compatible') throw refusal('unknown_url', `Invalid URL (${req.method} ${path})`);
        const request = checkResponses(body);
        if (request.stream) return await this.responsesStream(request, res);
        return send(res, 200, this.respond(request));
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
      usage: this.stated(documented('embeddingsUsage', { prompt_tokens: tokens, total_tokens: tokens })),
    });
  }

  /** test/fakes/openai-chat.ts answers; the call's number keeps ids apart between calls. */
  private chat(request: ChatRequest, dialect: OpenAiDialect) {
    const answer = chatCompletion(request, dialect, {
      chatReply: this.options.chatReply,
      callNumber: this.calls.length,
    });
    return { ...answer, usage: this.stated(answer.usage) };
  }

  /** The usage an answer reports: its token counts times `overReport`, and its `cost` when `costPer1kTokens` is set. */
  private stated<U extends Record<string, number>>(usage: U): U & { cost?: number } {
    const factor = this.options.overReport ?? 1;
    const scaled = Object.fromEntries(
      Object.entries(usage).map(([field, value]) => [field, Math.round(value * factor)]),
    ) as U;
    const price = this.options.costPer1kTokens;
    if (price === undefined) return scaled;
    // Decimal, as OpenRouter sends it; rounded to 1e-9 so the figure a test expects is exact.
    return { ...scaled, cost: Number((((scaled.total_tokens ?? 0) * price) / 1000).toFixed(9)) };
  }

  /** openai-responses.ts answers, on the conversation the request stands for. */
  private respond(request: ResponsesRequest) {
    return responseOf(request, { chatReply: this.options.chatReply, callNumber: this.calls.length });
  }

  /** OpenAI's streamed chat (openai-chat.ts, chatChunks) as SSE `data:` events, then `data: [DONE]`. */
  private async chatStream(request: ChatRequest, dialect: OpenAiDialect, res: ServerResponse): Promise<void> {
    const chunks = chatChunks(this.chat(request, dialect), request, dialect);
    await this.sendEvents(res, chunks, (data) => `data: ${JSON.stringify(data)}\n\n`, 'data: [DONE]\n\n');
  }

  /** OpenAI's streamed response (openai-responses.ts, responseEvents): named SSE events, nothing after the last. */
  private async responsesStream(request: ResponsesRequest, res: ServerResponse): Promise<void> {
    const events = responseEvents(this.respond(request), request);
    await this.sendEvents(res, events, (data) => `event: ${String(data.type)}\ndata: ${JSON.stringify(data)}\n\n`, '');
  }

  /**
   * Writes a stream's events as they are planned, pausing streamChunkDelayMs before each piece of the answer (content
   * or argument fragments). Records how many pieces went out before the client hung up, in `streamed`.
   */
  private async sendEvents<T>(
    res: ServerResponse,
    events: { data: T; piece: boolean }[],
    frame: (data: T) => string,
    ending: string,
  ): Promise<void> {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    const record = { total: events.filter((event) => event.piece).length, sent: 0, closedEarly: false };
    this.streamed.push(record);
    res.once('close', () => (record.closedEarly = !res.writableFinished));
    for (const { data, piece } of events) {
      if (res.destroyed) return;
      if (piece && this.options.streamChunkDelayMs) {
        await new Promise((r) => setTimeout(r, this.options.streamChunkDelayMs));
        if (res.destroyed) return;
      }
      res.write(frame(data));
      if (piece) record.sent++;
    }
    res.end(ending);
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
