import { randomBytes, randomInt } from 'node:crypto';
import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { AddressInfo } from 'node:net';
import sharp from 'sharp';
import { renderFakeEdit } from './openai-fake';

export const GENERATION_PATH = '/api/v1/services/aigc/multimodal-generation/generation';

/** What a scripted failure answers instead of an image. */
export interface DashScopeFailure {
  /** HTTP status; 500 by default. */
  status?: number;
  /** DashScope error code; by default the one DashScope uses for `status` (Throttling.RateQuota for 429, …). */
  code?: string;
  message?: string;
  /** Seconds, sent as Retry-After. */
  retryAfter?: number;
  /** Destroy the socket without answering. */
  dropConnection?: boolean;
}

export interface DashScopeFakeOptions {
  /** Bearer key the fake requires; without one, any Bearer key is accepted but a missing one is still a 401. */
  apiKey?: string;
  /** Delay before answering each generation, in ms. */
  delayMs?: number;
  /** Report a rewritten prompt as a text item beside the image when prompt_extend is not false. */
  revisedPrompt?: (text: string) => string;
  /** Pad each served file to this many bytes (zeros after the PNG's end), to exercise download caps. */
  fileBytes?: number;
  /** Serve files without Content-Length (chunked), so only a streaming cap can catch an oversized one. */
  chunkedFiles?: boolean;
  /** Downloads of outputs made with a matching seed never get an answer: a caller stuck after generation. */
  holdFiles?: (seed: number) => boolean;
}

/** One generation request as the fake received it. */
export interface DashScopeCall {
  /** 1-based arrival number, the `k` of failCall. */
  index: number;
  model?: string;
  /** The instruction text, if the request had exactly one. */
  text?: string;
  imageCount: number;
  /**
   * Decoded inputs in request order, filled once the request passed the key check, scripted failures and shape
   * checks; an input that is not a decodable data URI has no width/height.
   */
  images: { mime?: string; width?: number; height?: number }[];
  parameters: Record<string, unknown>;
  at: number;
  /** HTTP status answered; absent while in flight or when the connection was dropped. */
  status?: number;
  /** The DashScope error code answered, for failures. */
  code?: string;
  /** On success: the first output's URL, size and the seed that made it. */
  output?: { url: string; width: number; height: number; seed: number };
}

/** A generation request as DashScope documents it; invalidRequest() finds what the real service would refuse. */
type GenerationRequest = {
  model?: string;
  input?: { messages?: { role?: string; content?: ContentItem[] }[] };
  parameters?: {
    n?: number;
    size?: string;
    seed?: number;
    negative_prompt?: string;
    prompt_extend?: boolean;
    watermark?: boolean;
  } & Record<string, unknown>;
};

type ContentItem = { image?: string; text?: string };

const DEFAULT_CODES: Record<number, string> = {
  400: 'InvalidParameter',
  401: 'InvalidApiKey',
  403: 'AccessDenied',
  404: 'ModelNotFound',
  429: 'Throttling.RateQuota',
  500: 'InternalError',
  503: 'ServiceUnavailable',
};

const DEFAULT_MESSAGES: Record<string, string> = {
  InvalidApiKey: 'Invalid API-key provided.',
  DataInspectionFailed: 'Input data may contain inappropriate content.',
  'Throttling.RateQuota': 'Requests rate limit exceeded, please try again later.',
  InternalError: 'An internal error has occured, please try again later or contact service support.',
};

const MAX_SEED = 2147483647;

/**
 * DashScope's native multimodal-generation endpoint (the qwen-image-edit family) over real HTTP: DashScope's
 * request and answer shapes and error bodies ({request_id, code, message}), real PNG outputs served from
 * GET /files/<id>.png on the same server, every request recorded, and scripted failures. An output is the last
 * input resized to `size` (or to about 1024×1024 keeping its aspect) under a tint chosen by the seed, so a given
 * seed always gives the same image.
 */
export class DashScopeFake {
  readonly calls: DashScopeCall[] = [];
  /** Ids of the files downloaded, in order. */
  readonly downloads: string[] = [];
  /** Ids of the downloads held unanswered by `holdFiles`. */
  readonly held: string[] = [];
  private readonly fileSeeds = new Map<string, number>();
  inFlight = 0;
  maxInFlight = 0;
  private server?: Server;
  private nextFailures: (DashScopeFailure & { times: number })[] = [];
  private persistentFailures: { match: (call: DashScopeCall) => boolean; failure: DashScopeFailure }[] = [];
  private readonly files = new Map<string, Buffer>();

  constructor(readonly options: DashScopeFakeOptions = {}) {}

  /** The upstream's root, as UPSTREAM_DASHSCOPE_BASE_URL takes it; set by start(). */
  url = '';

  setDelay(ms: number): void {
    this.options.delayMs = ms;
  }

  /** The next `times` (default 1) generations fail. */
  failNext(failure: DashScopeFailure & { times?: number } = {}): void {
    this.nextFailures.push({ ...failure, times: failure.times ?? 1 });
  }

  /** The k-th generation request (1-based, counted since start or reset) fails. */
  failCall(k: number, failure: DashScopeFailure): void {
    this.failWhen((call) => call.index === k, failure);
  }

  /** Every generation request that matches fails, retries included (e.g. match on `parameters.seed`). */
  failWhen(match: (call: DashScopeCall) => boolean, failure: DashScopeFailure): void {
    this.persistentFailures.push({ match, failure });
  }

  /** The bytes of a served file, by the URL the fake answered. */
  fileAt(url: string): Buffer | undefined {
    return this.files.get(fileId(url));
  }

  reset(): void {
    this.calls.length = 0;
    this.downloads.length = 0;
    this.held.length = 0;
    this.nextFailures = [];
    this.persistentFailures = [];
    this.files.clear();
    this.fileSeeds.clear();
    this.maxInFlight = 0;
  }

  async start(port = 0): Promise<this> {
    this.server = createServer(
      (req, res) =>
        void this.handle(req, res).catch((error: Error) => {
          if (!res.headersSent) send(res, 500, errorBody('InternalError', `fake failed: ${error.message}`));
        }),
    );
    this.server.keepAliveTimeout = 60_000;
    await new Promise<void>((resolve) => this.server!.listen(port, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async close(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()) ?? resolve());
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const path = (req.url ?? '').split('?')[0];
    if (req.method === 'GET' && path.startsWith('/files/')) return this.serveFile(path, res);
    if (req.method !== 'POST' || path !== GENERATION_PATH) {
      return send(res, 404, errorBody('NotFound', `The requested resource ${req.method} ${path} was not found.`));
    }
    // JSON null parses too; the shape checks refuse it.
    let body: GenerationRequest | null;
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      return send(res, 400, errorBody('InvalidParameter', 'The request body is not valid JSON.'));
    }
    const content = body?.input?.messages?.[0]?.content;
    const items: ContentItem[] = Array.isArray(content) ? content : [];
    const texts = items.filter((item) => typeof item?.text === 'string');
    const call: DashScopeCall = {
      index: this.calls.length + 1,
      model: body?.model,
      text: texts.length === 1 ? texts[0].text : undefined,
      imageCount: items.filter((item) => item?.image !== undefined).length,
      images: [],
      parameters: { ...(body?.parameters ?? {}) },
      at: Date.now(),
    };
    this.calls.push(call);
    const answer = (
      status: number,
      payload: { code?: string } & Record<string, unknown>,
      headers: Record<string, string> = {},
    ) => {
      call.status = status;
      call.code = payload.code;
      send(res, status, payload, headers);
    };
    this.inFlight++;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    try {
      if (this.options.delayMs) await new Promise((r) => setTimeout(r, this.options.delayMs));
      const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
      if (!bearer || (this.options.apiKey && bearer !== this.options.apiKey)) {
        return answer(401, errorBody('InvalidApiKey', DEFAULT_MESSAGES.InvalidApiKey));
      }
      const failure = this.scriptedFailure(call);
      if (failure) {
        if (failure.dropConnection) return void req.socket.destroy();
        const status = failure.status ?? 500;
        const code = failure.code ?? DEFAULT_CODES[status] ?? 'InternalError';
        const headers: Record<string, string> =
          failure.retryAfter !== undefined ? { 'retry-after': String(failure.retryAfter) } : {};
        return answer(
          status,
          errorBody(code, failure.message ?? DEFAULT_MESSAGES[code] ?? `Scripted failure ${code}.`),
          headers,
        );
      }
      const problem = invalidRequest(body, items);
      if (problem) return answer(400, errorBody('InvalidParameter', problem));
      const inputs = await Promise.all(
        items
          .map((item) => item.image)
          .filter((image) => image !== undefined)
          .map((image) => decodeDataUri(image)),
      );
      call.images = inputs.map(({ mime, width, height }) => ({ mime, width, height }));
      const undecodable = inputs.findIndex((input) => !input.data);
      if (undecodable >= 0)
        return answer(
          400,
          errorBody('InvalidParameter', `The image at position ${undecodable + 1} is not a decodable image data URI.`),
        );
      return answer(200, await this.generate(call, inputs[inputs.length - 1]));
    } finally {
      this.inFlight--;
    }
  }

  private scriptedFailure(call: DashScopeCall): DashScopeFailure | undefined {
    const persistent = this.persistentFailures.find((entry) => entry.match(call));
    if (persistent) return persistent.failure;
    const next = this.nextFailures[0];
    if (next && --next.times <= 0) this.nextFailures.shift();
    return next;
  }

  private async generate(call: DashScopeCall, last: DecodedInput) {
    const parameters = call.parameters;
    const [width, height] =
      typeof parameters.size === 'string'
        ? parameters.size.split('*').map(Number)
        : aboutOneMegapixel(last.width!, last.height!);
    const n = typeof parameters.n === 'number' ? parameters.n : 1;
    const seed = typeof parameters.seed === 'number' ? parameters.seed : randomInt(MAX_SEED);
    const images = await Promise.all(
      Array.from({ length: n }, async (_, i) => {
        const id = randomBytes(8).toString('hex');
        this.files.set(id, await renderFakeEdit(last.data!, width, height, (seed + i) % (MAX_SEED + 1)));
        this.fileSeeds.set(id, (seed + i) % (MAX_SEED + 1));
        return { image: `${this.url}/files/${id}.png?Expires=${Math.floor(Date.now() / 1000) + 86400}&Signature=fake` };
      }),
    );
    call.output = { url: images[0].image, width, height, seed };
    const content: Record<string, string>[] = [...images];
    if (this.options.revisedPrompt && parameters.prompt_extend !== false)
      content.push({ text: this.options.revisedPrompt(call.text!) });
    return {
      output: { choices: [{ finish_reason: 'stop', message: { role: 'assistant', content } }] },
      usage: { width, height, image_count: n },
      request_id: requestId(),
    };
  }

  private serveFile(path: string, res: ServerResponse): void {
    const id = fileId(path);
    const file = this.files.get(id);
    if (!file) return send(res, 404, errorBody('NotFound', 'The file does not exist or has expired.'));
    if (this.options.holdFiles?.(this.fileSeeds.get(id) ?? -1)) return void this.held.push(id);
    this.downloads.push(id);
    const padded =
      this.options.fileBytes && this.options.fileBytes > file.length
        ? Buffer.concat([file, Buffer.alloc(this.options.fileBytes - file.length)])
        : file;
    if (this.options.chunkedFiles) {
      res.writeHead(200, { 'content-type': 'image/png' });
      // Several writes so the body really arrives in chunks.
      const step = 1024 * 1024;
      for (let offset = 0; offset < padded.length; offset += step) res.write(padded.subarray(offset, offset + step));
      return void res.end();
    }
    res.writeHead(200, { 'content-type': 'image/png', 'content-length': padded.length });
    res.end(padded);
  }
}

/** Starts a DashScope fake on a free port of 127.0.0.1. */
export function startDashScopeFake(options: DashScopeFakeOptions = {}): Promise<DashScopeFake> {
  return new DashScopeFake(options).start();
}

/** DashScope's checks on the request shape, as messages it would answer; undefined when the shape is fine. */
function invalidRequest(body: GenerationRequest | null, items: ContentItem[]): string | undefined {
  if (typeof body?.model !== 'string' || body.model === '') return 'Model not specified.';
  const messages = body?.input?.messages;
  if (!Array.isArray(messages) || messages.length === 0) return 'Field required: input.messages';
  if (messages.length !== 1 || messages[0]?.role !== 'user')
    return 'input.messages must hold exactly one message with role user.';
  if (!Array.isArray(messages[0].content)) return 'Field required: input.messages[0].content';
  if (items.some((item) => typeof item !== 'object' || item === null || 'image' in item === 'text' in item)) {
    return 'Each content item must carry exactly one of image or text.';
  }
  const images = items.filter((item) => 'image' in item);
  const texts = items.filter((item) => 'text' in item);
  if (images.length < 1 || images.length > 3)
    return `The number of input images must be between 1 and 3, got ${images.length}.`;
  if (texts.length !== 1 || typeof texts[0].text !== 'string' || texts[0].text.trim() === '')
    return 'Exactly one non-empty text item is required.';
  if (images.some((item) => typeof item.image !== 'string')) return 'image must be a string.';
  const parameters = body.parameters ?? {};
  if (typeof parameters !== 'object') return 'parameters must be an object.';
  const { n, size, seed, negative_prompt, prompt_extend, watermark } = parameters;
  if (n !== undefined && (!Number.isInteger(n) || n < 1 || n > 6))
    return 'parameters.n must be an integer between 1 and 6.';
  if (size !== undefined) {
    const match = typeof size === 'string' ? /^(\d+)\*(\d+)$/.exec(size) : null;
    if (!match || [match[1], match[2]].map(Number).some((side) => side < 512 || side > 2048)) {
      return 'parameters.size must be <width>*<height> with each side between 512 and 2048.';
    }
  }
  if (seed !== undefined && (!Number.isInteger(seed) || seed < 0 || seed > MAX_SEED))
    return `parameters.seed must be an integer between 0 and ${MAX_SEED}.`;
  if (negative_prompt !== undefined && typeof negative_prompt !== 'string')
    return 'parameters.negative_prompt must be a string.';
  if (prompt_extend !== undefined && typeof prompt_extend !== 'boolean')
    return 'parameters.prompt_extend must be a boolean.';
  if (watermark !== undefined && typeof watermark !== 'boolean') return 'parameters.watermark must be a boolean.';
  return undefined;
}

interface DecodedInput {
  mime?: string;
  data?: Buffer;
  width?: number;
  height?: number;
}

async function decodeDataUri(uri: string): Promise<DecodedInput> {
  const match = /^data:(image\/[\w.+-]+);base64,(.+)$/s.exec(uri);
  if (!match) return {};
  const data = Buffer.from(match[2], 'base64');
  const meta = await sharp(data)
    .metadata()
    .catch(() => undefined);
  return meta?.width && meta.height
    ? { mime: match[1], data, width: meta.width, height: meta.height }
    : { mime: match[1] };
}

/** The default output size: the input's aspect ratio at about 1024×1024 pixels, sides multiples of 16. */
export function aboutOneMegapixel(width: number, height: number): [number, number] {
  const aspect = width / height;
  const outWidth = Math.sqrt(1024 * 1024 * aspect);
  return [roundTo16(outWidth), roundTo16(outWidth / aspect)];
}

function roundTo16(side: number): number {
  return Math.max(16, Math.round(side / 16) * 16);
}

function fileId(url: string): string {
  return (url.split('/files/')[1] ?? '').replace(/\?.*$/, '').replace(/\.png$/, '');
}

function requestId(): string {
  const hex = randomBytes(16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

function errorBody(code: string, message: string) {
  return { request_id: requestId(), code, message };
}

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

// `node dashscope-fake.js --port N` runs it standalone (benchmarks, manual tries).
if (require.main === module) {
  const port = Number(process.argv[process.argv.indexOf('--port') + 1] || 0);
  void new DashScopeFake().start(port).then((fake) => process.stdout.write(`${fake.url}\n`));
}
