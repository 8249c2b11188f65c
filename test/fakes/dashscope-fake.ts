import ipaddr from 'ipaddr.js';
import { randomBytes, randomInt } from 'node:crypto';
import { lookup } from 'node:dns/promises';
import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { AddressInfo } from 'node:net';
import sharp from 'sharp';
import { renderFakeEdit } from './openai-fake';
import {
  DASHSCOPE_ANSWER_FIELDS,
  DASHSCOPE_CODE_FOR_STATUS,
  DASHSCOPE_DEFAULT_LATENCY_MS,
  DASHSCOPE_ERROR_MESSAGES,
  DASHSCOPE_ERRORS,
  DASHSCOPE_IMAGE_LIMITS,
  DASHSCOPE_IMAGE_MODELS,
  DASHSCOPE_RATE_WINDOW_MS,
  DashScopeImageModel,
} from './upstream-rules';

export const GENERATION_PATH = '/api/v1/services/aigc/multimodal-generation/generation';

/** What a scripted failure answers instead of an image. */
export interface DashScopeFailure {
  /** HTTP status: the documented one for `code`, else 500. 200 with a `code` is an error answer on a success status. */
  status?: number;
  /** DashScope error code; by default the documented one for `status` (DASHSCOPE_CODE_FOR_STATUS). */
  code?: string;
  message?: string;
  /** Seconds, sent as Retry-After. */
  retryAfter?: number;
  /** Destroy the socket without answering. */
  dropConnection?: boolean;
  /** Generate (and count) the image, then never answer: a caller's timeout after the upstream did the work. */
  hangAfterGeneration?: boolean;
  /**
   * Generate (and count) the image, then answer `status` (504 by default) with a proxy's HTML page and no DashScope
   * `code`: the gateway in front of the service gave up while the generation went on.
   */
  proxyErrorAfterGeneration?: boolean;
}

/** What a scripted download failure does instead of serving the file. */
export interface DownloadFailure {
  /** Never answer, so the caller's download deadline passes. */
  hang?: boolean;
  /** Answer this status (500 by default) without the file. */
  status?: number;
}

export interface DashScopeFakeOptions {
  /** Bearer key the fake requires; without one, any Bearer key is accepted but a missing one is still a 401. */
  apiKey?: string;
  /** Report this many times the images generated in `usage.image_count`, as an upstream billing above what it made. */
  overReport?: number;
  /** Delay before answering each generation, in ms (DASHSCOPE_DEFAULT_LATENCY_MS by default; 0 for none). */
  delayMs?: number;
  /** Delay before serving each result file, in ms. */
  downloadDelayMs?: number;
  /** Generation starts allowed per DASHSCOPE_RATE_WINDOW_MS; more answer 429 Throttling.RateQuota. Unlimited if unset. */
  rateLimitPerSecond?: number;
  /** Pad each served file to this many bytes (zeros after the PNG's end), to exercise download caps. */
  fileBytes?: number;
  /** Serve files without Content-Length (chunked), so only a streaming cap can catch an oversized one. */
  chunkedFiles?: boolean;
  /** Downloads of outputs made with a matching seed never get an answer: a caller stuck after generation. */
  holdFiles?: (seed: number) => boolean;
  /**
   * Host names or addresses of input URLs the fake fetches as if they were public, although they are on loopback: a
   * test's image server standing for one on the internet. Every other non-public address is refused, as the
   * service, which fetches from the internet, cannot reach it.
   */
  publicHosts?: string[];
}

/** One input image as the fake received it. */
export interface ReceivedImage {
  /** A data URI in the body, or a URL the fake fetched as the service would. */
  source: 'data' | 'url';
  url?: string;
  mime?: string;
  /** Bytes of the image itself (decoded from base64, or as fetched). */
  bytes?: number;
  width?: number;
  height?: number;
}

/** One generation request as the fake received it. */
export interface DashScopeCall {
  /** 1-based arrival number, the `k` of failCall. */
  index: number;
  model?: string;
  /** The instruction text as used: cut to DASHSCOPE_IMAGE_LIMITS.maxTextChars, as the service does. */
  text?: string;
  /** Body bytes and its Content-Type header. */
  bodyBytes: number;
  contentType?: string;
  imageCount: number;
  /** Inputs in request order, filled once the request passed the key check, scripted failures and shape checks. */
  images: ReceivedImage[];
  parameters: Record<string, unknown>;
  /** When the request's headers arrived (epoch ms): a multi-MB body's transfer time does not shift it. */
  at: number;
  /** The request_id answered. */
  requestId: string;
  /** HTTP status answered; absent while in flight or when the connection was dropped or held. */
  status?: number;
  /** The DashScope error code answered, for failures. */
  code?: string;
  /** Whether an image was generated (billed by the real service), answered or not. */
  generated?: boolean;
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

const MAX_SEED = DASHSCOPE_IMAGE_LIMITS.seedRange.max;
const PARAMETERS = ['n', 'size', 'seed', 'negative_prompt', 'prompt_extend', 'watermark'];

/** A request the service refuses: the status and documented code it answers, with its message. */
class Refusal {
  constructor(
    readonly code: string,
    readonly message = DASHSCOPE_ERRORS[code]?.message ?? code,
    readonly status = DASHSCOPE_ERRORS[code]?.status ?? 400,
  ) {}
}

/**
 * DashScope's native multimodal-generation endpoint (the qwen-image-edit family) over real HTTP, as strict as the
 * documentation (upstream-rules.ts, DASHSCOPE_*): Content-Type, body size, per-model parameters and ranges, input
 * formats and sizes (URL inputs are fetched, as the service fetches them), exact error codes, answers with only
 * the documented fields, and a realistic delay by default. Real PNG outputs are served from GET /files/<id>.png on
 * the same server; every request is recorded, failures of generations and downloads can be scripted. An output is
 * the last input resized to `size` rounded to multiples of 16 (or to about 1024×1024 keeping its aspect) under a
 * tint chosen by the seed, so a given seed always gives the same image.
 */
export class DashScopeFake {
  readonly calls: DashScopeCall[] = [];
  /** Ids of the files served, in order. */
  readonly downloads: string[] = [];
  /** Download requests of any outcome, in order, with what was done. */
  readonly downloadAttempts: { id: string; outcome: 'served' | 'failed' | 'hung' | 'held' }[] = [];
  /** Ids of the downloads held unanswered by `holdFiles`. */
  readonly held: string[] = [];
  private readonly fileSeeds = new Map<string, number>();
  inFlight = 0;
  maxInFlight = 0;
  private server?: Server;
  private nextFailures: (DashScopeFailure & { times: number })[] = [];
  private persistentFailures: { match: (call: DashScopeCall) => boolean; failure: DashScopeFailure }[] = [];
  private downloadFailures: (DownloadFailure & { times: number })[] = [];
  private readonly files = new Map<string, Buffer>();

  constructor(readonly options: DashScopeFakeOptions = {}) {}

  /** The upstream's root, as UPSTREAM_DASHSCOPE_BASE_URL takes it; set by start(). */
  url = '';

  /** Images generated, which the real service bills, whether or not the answer reached the caller. */
  get generations(): number {
    return this.calls
      .filter((call) => call.generated)
      .reduce((sum, call) => sum + (typeof call.parameters.n === 'number' ? call.parameters.n : 1), 0);
  }

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

  /** The next `times` (default 1) result downloads fail. */
  failDownloads(failure: DownloadFailure & { times?: number } = {}): void {
    this.downloadFailures.push({ ...failure, times: failure.times ?? 1 });
  }

  /** The bytes of a served file, by the URL the fake answered. */
  fileAt(url: string): Buffer | undefined {
    return this.files.get(fileId(url));
  }

  reset(): void {
    this.calls.length = 0;
    this.downloads.length = 0;
    this.downloadAttempts.length = 0;
    this.held.length = 0;
    this.nextFailures = [];
    this.persistentFailures = [];
    this.downloadFailures = [];
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
    const arrivedAt = Date.now();
    const path = (req.url ?? '').split('?')[0];
    if (req.method === 'GET' && path.startsWith('/files/')) {
      req.resume();
      return this.serveFile(path, res);
    }
    const limit = DASHSCOPE_IMAGE_LIMITS.maxBodyBytes;
    const chunks: Buffer[] = [];
    let bodyBytes = 0;
    for await (const chunk of req) {
      bodyBytes += (chunk as Buffer).length;
      if (bodyBytes <= limit) chunks.push(chunk as Buffer);
    }
    if (req.method !== 'POST' || path !== GENERATION_PATH) {
      return send(res, 404, errorBody('NotFound', `The requested resource ${req.method} ${path} was not found.`));
    }
    const call: DashScopeCall = {
      index: this.calls.length + 1,
      bodyBytes,
      contentType: req.headers['content-type'],
      imageCount: 0,
      images: [],
      parameters: {},
      at: arrivedAt,
      requestId: requestId(),
    };
    this.calls.push(call);
    const answer = (status: number, payload: Record<string, unknown>, headers: Record<string, string> = {}) => {
      call.status = status;
      call.code = typeof payload.code === 'string' ? payload.code : undefined;
      send(res, status, payload, headers);
    };
    const refuse = (refusal: Refusal, headers?: Record<string, string>) =>
      answer(refusal.status, { request_id: call.requestId, code: refusal.code, message: refusal.message }, headers);
    this.inFlight++;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    try {
      const delayMs = this.options.delayMs ?? DASHSCOPE_DEFAULT_LATENCY_MS.generation;
      const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
      if (!bearer || (this.options.apiKey && bearer !== this.options.apiKey))
        return refuse(new Refusal('InvalidApiKey'));
      if (bodyBytes > limit) return refuse(new Refusal('BadRequest.TooLarge'));
      if (mediaType(call.contentType) !== DASHSCOPE_IMAGE_LIMITS.contentType)
        return refuse(new Refusal('UnsupportedMediaType'));
      if (this.throttled(call)) return refuse(new Refusal('Throttling.RateQuota'));
      // JSON null parses too; the shape checks refuse it.
      let body: GenerationRequest | null;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        return refuse(new Refusal('InvalidParameter', 'The request body is not valid JSON.'));
      }
      const content = body?.input?.messages?.[0]?.content;
      const items: ContentItem[] = Array.isArray(content) ? content : [];
      const texts = items.filter((item) => typeof item?.text === 'string');
      call.model = body?.model;
      call.text =
        texts.length === 1 ? [...texts[0].text!].slice(0, DASHSCOPE_IMAGE_LIMITS.maxTextChars).join('') : undefined;
      call.imageCount = items.filter((item) => item?.image !== undefined).length;
      call.parameters = { ...(body?.parameters ?? {}) };

      const failure = this.scriptedFailure(call);
      if (failure && !failure.hangAfterGeneration && !failure.proxyErrorAfterGeneration) {
        if (delayMs) await sleep(delayMs);
        if (failure.dropConnection) return void req.socket.destroy();
        const status = failure.status ?? (failure.code ? DASHSCOPE_ERRORS[failure.code]?.status : undefined) ?? 500;
        const code = failure.code ?? DASHSCOPE_CODE_FOR_STATUS[status] ?? 'InternalError';
        const headers: Record<string, string> =
          failure.retryAfter !== undefined ? { 'retry-after': String(failure.retryAfter) } : {};
        return refuse(new Refusal(code, failure.message ?? DASHSCOPE_ERRORS[code]?.message, status), headers);
      }
      const invalid = invalidRequest(body, items);
      if (invalid) return refuse(invalid);
      const inputs = await Promise.all(
        items
          .filter((item) => item.image !== undefined)
          .map((item) => receive(item.image!, this.options.publicHosts ?? [])),
      );
      call.images = inputs.map(({ data: _data, ...received }) => received);
      const badInput = inputs.findIndex((input) => input.refusal);
      if (badInput >= 0) return refuse(inputs[badInput].refusal!);
      if (delayMs) await sleep(delayMs);
      const generated = await this.generate(call, inputs[inputs.length - 1]);
      if (failure?.hangAfterGeneration) return; // answered never; the caller's deadline passes
      if (failure?.proxyErrorAfterGeneration) return proxyError(res, call, failure.status ?? 504);
      return answer(200, generated);
    } finally {
      this.inFlight--;
    }
  }

  /** More generation starts than the per-second limit within the window (only when rateLimitPerSecond is set). */
  private throttled(call: DashScopeCall): boolean {
    const limit = this.options.rateLimitPerSecond;
    if (!limit) return false;
    const since = call.at - DASHSCOPE_RATE_WINDOW_MS;
    const started = this.calls.filter(
      (other) => other !== call && other.at > since && other.code !== 'Throttling.RateQuota',
    );
    return started.length >= limit;
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
        ? parameters.size.split('*').map((side) => roundTo16(Number(side)))
        : aboutOneMegapixel(last.width!, last.height!);
    const n = typeof parameters.n === 'number' ? parameters.n : 1;
    const seed = typeof parameters.seed === 'number' ? parameters.seed : randomInt(MAX_SEED);
    const images = await Promise.all(
      Array.from({ length: n }, async (_, i) => {
        const id = randomBytes(8).toString('hex');
        this.files.set(id, await renderFakeEdit(last.data!, width, height, (seed + i) % (MAX_SEED + 1)));
        this.fileSeeds.set(id, (seed + i) % (MAX_SEED + 1));
        const expires = Math.floor(Date.now() / 1000) + DASHSCOPE_IMAGE_LIMITS.resultUrlSeconds;
        return { image: `${this.url}/files/${id}.png?Expires=${expires}&Signature=fake` };
      }),
    );
    call.generated = true;
    call.output = { url: images[0].image, width, height, seed };
    return documented({
      output: { choices: [{ finish_reason: 'stop', message: { role: 'assistant', content: images } }] },
      // usage.image_count is what DashScope bills (https://www.alibabacloud.com/help/en/model-studio/qwen-image-edit-api).
      usage: { width, height, image_count: Math.round(n * (this.options.overReport ?? 1)) },
      request_id: call.requestId,
    });
  }

  private async serveFile(path: string, res: ServerResponse): Promise<void> {
    const id = fileId(path);
    const file = this.files.get(id);
    if (!file) return send(res, 404, errorBody('NotFound', 'The file does not exist or has expired.'));
    if (this.options.holdFiles?.(this.fileSeeds.get(id) ?? -1)) {
      this.downloadAttempts.push({ id, outcome: 'held' });
      return void this.held.push(id);
    }
    const failure = this.downloadFailures[0];
    if (failure) {
      if (--failure.times <= 0) this.downloadFailures.shift();
      this.downloadAttempts.push({ id, outcome: failure.hang ? 'hung' : 'failed' });
      if (failure.hang) return;
      return send(res, failure.status ?? 500, errorBody('InternalError', DASHSCOPE_ERRORS.InternalError.message));
    }
    if (this.options.downloadDelayMs ?? DASHSCOPE_DEFAULT_LATENCY_MS.download)
      await sleep(this.options.downloadDelayMs ?? DASHSCOPE_DEFAULT_LATENCY_MS.download);
    this.downloads.push(id);
    this.downloadAttempts.push({ id, outcome: 'served' });
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

/** DashScope's checks on the request, per model (DASHSCOPE_IMAGE_MODELS); undefined when it is fine. */
function invalidRequest(body: GenerationRequest | null, items: ContentItem[]): Refusal | undefined {
  const invalid = (message: string) => new Refusal('InvalidParameter', message);
  if (typeof body?.model !== 'string' || body.model === '') return invalid('Model not specified.');
  const model: DashScopeImageModel | undefined = DASHSCOPE_IMAGE_MODELS[body.model];
  if (!model) return new Refusal('ModelNotFound');
  const messages = body?.input?.messages;
  if (!Array.isArray(messages) || messages.length === 0) return invalid('Field required: input.messages');
  if (messages.length !== 1 || messages[0]?.role !== 'user')
    return invalid('input.messages must hold exactly one message with role user.');
  if (!Array.isArray(messages[0].content)) return invalid('Field required: input.messages[0].content');
  if (items.some((item) => typeof item !== 'object' || item === null || 'image' in item === 'text' in item)) {
    return invalid('Each content item must carry exactly one of image or text.');
  }
  const images = items.filter((item) => 'image' in item);
  const texts = items.filter((item) => 'text' in item);
  const { minImages, maxImages } = DASHSCOPE_IMAGE_LIMITS;
  if (images.length < minImages || images.length > maxImages)
    return invalid(`The number of input images must be between ${minImages} and ${maxImages}, got ${images.length}.`);
  if (texts.length !== 1 || typeof texts[0].text !== 'string' || texts[0].text.trim() === '')
    return invalid('Exactly one non-empty text item is required.');
  if (images.some((item) => typeof item.image !== 'string')) return invalid('image must be a string.');
  const parameters = body.parameters ?? {};
  if (typeof parameters !== 'object') return invalid('parameters must be an object.');
  const unknown = Object.keys(parameters).find((name) => !PARAMETERS.includes(name));
  if (unknown) return invalid(`parameters.${unknown} is not a parameter of ${body.model}.`);
  const { n, size, seed, negative_prompt, prompt_extend, watermark } = parameters;
  if (n !== undefined && (!Number.isInteger(n) || n < 1 || n > model.maxN))
    return invalid(`parameters.n must be an integer between 1 and ${model.maxN} for ${body.model}.`);
  if (size !== undefined) {
    if (!model.size) return invalid(`parameters.size is not supported by ${body.model}.`);
    const { min, max } = DASHSCOPE_IMAGE_LIMITS.sizeRange;
    const match = typeof size === 'string' ? /^(\d+)\*(\d+)$/.exec(size) : null;
    if (!match || [match[1], match[2]].map(Number).some((side) => side < min || side > max)) {
      return invalid(`parameters.size must be <width>*<height> with each side between ${min} and ${max}.`);
    }
  }
  if (seed !== undefined && (!Number.isInteger(seed) || seed < 0 || seed > MAX_SEED))
    return invalid(`parameters.seed must be an integer between 0 and ${MAX_SEED}.`);
  if (negative_prompt !== undefined && typeof negative_prompt !== 'string')
    return invalid('parameters.negative_prompt must be a string.');
  if (typeof negative_prompt === 'string' && [...negative_prompt].length > DASHSCOPE_IMAGE_LIMITS.negativePromptChars)
    return invalid(
      `parameters.negative_prompt must be at most ${DASHSCOPE_IMAGE_LIMITS.negativePromptChars} characters.`,
    );
  if (prompt_extend !== undefined) {
    if (!model.promptExtend) return invalid(`parameters.prompt_extend is not supported by ${body.model}.`);
    if (typeof prompt_extend !== 'boolean') return invalid('parameters.prompt_extend must be a boolean.');
  }
  if (watermark !== undefined && typeof watermark !== 'boolean')
    return invalid('parameters.watermark must be a boolean.');
  return undefined;
}

interface DecodedInput extends ReceivedImage {
  data?: Buffer;
  /** Why the service would refuse this input. */
  refusal?: Refusal;
}

/**
 * An input as the service takes it: a data URI decoded, or a public URL fetched; then its size, format and sides
 * checked. The service fetches from the internet (DASHSCOPE_DOCS.imageEdit: "a publicly accessible URL"): an address
 * that is not public unicast is out of its reach, it follows no redirect, and it wants a Content-Length.
 */
async function receive(image: string, publicHosts: readonly string[]): Promise<DecodedInput> {
  // Only the header goes through a regex: one over a 13 MB payload can exhaust V8's backtracking stack
  // (RangeError: Maximum call stack size exceeded, seen late in a long test run).
  const comma = image.indexOf(',');
  const dataUri = comma > 0 ? /^data:([\w.+-]+\/[\w.+-]+);base64$/.exec(image.slice(0, comma)) : null;
  if (dataUri && comma < image.length - 1)
    return checked({ source: 'data', mime: dataUri[1] }, Buffer.from(image.slice(comma + 1), 'base64'));
  let url: URL | undefined;
  try {
    url = new URL(image);
  } catch {
    // refused below
  }
  if (!url || !(DASHSCOPE_IMAGE_LIMITS.imageUrlSchemes as readonly string[]).includes(url.protocol)) {
    return {
      source: 'data',
      refusal: new Refusal('InvalidParameter', 'The image must be a data URI or an HTTP(S) URL.'),
    };
  }
  const received: ReceivedImage = { source: 'url', url: image };
  const refused = (refusal: Refusal): DecodedInput => ({ ...received, refusal });
  if (!publicHosts.includes(url.hostname) && !(await isPublic(url.hostname))) return refused(new Refusal('InvalidURL'));
  let response: Response;
  try {
    response = await fetch(url, { redirect: 'manual', signal: AbortSignal.timeout(10_000) });
  } catch {
    return refused(new Refusal('InvalidURL'));
  }
  const downloadFailed = (why: string) =>
    refused(new Refusal('BadRequest.InputDownloadFailed', `Failed to download the input file: ${why}.`));
  if (!response.ok) {
    await response.body?.cancel();
    return downloadFailed(`the URL answered HTTP ${response.status}`);
  }
  if (response.headers.get('content-length') === null) {
    await response.body?.cancel();
    // DASHSCOPE_ERROR_PAGES.zh: InternalError.Algo on HTTP 400.
    return refused(new Refusal('InternalError.Algo', DASHSCOPE_ERROR_MESSAGES.missingContentLength, 400));
  }
  const mime = response.headers.get('content-type')?.split(';')[0].trim();
  return checked({ ...received, mime }, Buffer.from(await response.arrayBuffer()));
}

/** Whether every address of `hostname` is public unicast, as the internet sees it. */
async function isPublic(hostname: string): Promise<boolean> {
  const bare = hostname.replace(/^\[(.*)\]$/, '$1');
  let addresses: string[];
  try {
    addresses = ipaddr.isValid(bare) ? [bare] : (await lookup(bare, { all: true })).map((entry) => entry.address);
  } catch {
    return false;
  }
  return addresses.length > 0 && addresses.every((address) => ipaddr.process(address).range() === 'unicast');
}

async function checked(received: ReceivedImage, data: Buffer): Promise<DecodedInput> {
  const { maxImageBytes, imageMimes } = DASHSCOPE_IMAGE_LIMITS;
  const input: DecodedInput = { ...received, bytes: data.length };
  if (data.length > maxImageBytes)
    return {
      ...input,
      refusal: new Refusal('InvalidParameter', `The image size exceeds the limit of ${maxImageBytes} bytes.`),
    };
  const meta = await sharp(data)
    .metadata()
    .catch(() => undefined);
  const format = meta?.format === 'jpeg' ? 'jpeg' : meta?.format;
  const mime = format === undefined ? undefined : `image/${format === 'heif' ? 'heic' : format}`;
  if (!meta?.width || !meta.height || !mime || !(imageMimes as readonly string[]).includes(mime))
    return {
      ...input,
      refusal: new Refusal('InvalidParameter', 'The image format is not supported or the data is not an image.'),
    };
  if (received.source === 'data' && received.mime && !(imageMimes as readonly string[]).includes(received.mime))
    return {
      ...input,
      refusal: new Refusal('InvalidParameter', `The image format ${received.mime} is not supported.`),
    };
  const { width, height } = meta.autoOrient ?? meta;
  const { min, max } = DASHSCOPE_IMAGE_LIMITS.inputSides;
  // Not the page's wording, which gives only the range (DASHSCOPE_DOCS.imageEdit, "Image resolution").
  if ([width, height].some((side) => side < min || side > max))
    return {
      ...input,
      width,
      height,
      refusal: new Refusal(
        'InvalidParameter',
        `The image width and height must be within [${min}, ${max}] pixels, got ${width}x${height}.`,
      ),
    };
  return { ...input, data, width, height };
}

/** Only the fields DASHSCOPE_ANSWER_FIELDS lists, so a fake answer never teaches the adapter an undocumented one. */
function documented<T extends { output: unknown; usage: object; request_id: string }>(answer: T): T {
  const only = (value: object, fields: readonly string[], at: string) => {
    const extra = Object.keys(value).find((key) => !fields.includes(key));
    if (extra) throw new Error(`undocumented field ${at}.${extra} in a DashScope answer`);
  };
  only(answer, DASHSCOPE_ANSWER_FIELDS.top, 'answer');
  only(answer.usage, DASHSCOPE_ANSWER_FIELDS.usage, 'usage');
  const choices = (answer.output as { choices: { message: { content: object[] } }[] }).choices;
  for (const choice of choices) {
    only(choice, DASHSCOPE_ANSWER_FIELDS.choice, 'choice');
    only(choice.message, DASHSCOPE_ANSWER_FIELDS.message, 'message');
    for (const item of choice.message.content) only(item, DASHSCOPE_ANSWER_FIELDS.contentItem, 'content');
  }
  return answer;
}

function mediaType(header: string | undefined): string | undefined {
  return header?.split(';')[0].trim().toLowerCase();
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
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

/** A load balancer's own error page: HTML, no request id and no DashScope `code`. */
function proxyError(res: ServerResponse, call: DashScopeCall, status: number): void {
  call.status = status;
  const text = `<html><head><title>${status}</title></head><body><center><h1>${status}</h1></center></body></html>`;
  res.writeHead(status, { 'content-type': 'text/html', 'content-length': Buffer.byteLength(text) });
  res.end(text);
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
