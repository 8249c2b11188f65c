import { randomBytes } from 'node:crypto';
import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import sharp from 'sharp';
import { Response } from 'undici';

/** A scripted failure: the next `times` calls answer `status` (or drop the connection) instead of succeeding. */
export interface ScriptedFailure {
  times: number;
  status?: number;
  body?: unknown;
  dropConnection?: boolean;
}

export interface FakeOptions {
  /** Delay before answering each call, in ms. */
  delayMs?: number;
  /** Vector length when the request carries no `dimensions`. */
  nativeDimensions?: number;
  /** Honour `dimensions` (OpenAI text-embedding-3 style) or always return the native length. */
  honoursDimensions?: boolean;
  /** Bearer key the fake requires, if any. */
  apiKey?: string;
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

/** The bodies the fake reads, as OpenAI documents them; the gateway sends nothing else to these paths. */
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

/**
 * An OpenAI-style upstream over real HTTP: POST /v1/embeddings, /v1/chat/completions and /v1/images/edits
 * (multipart) with OpenAI's request and response shapes, error bodies ({"error":{message,type,code}}), 401 for a
 * wrong key and scripted 429/5xx. Embeddings are deterministic per text so tests can compare runs; image edits
 * are real PNGs. An image edit's recorded `body` holds its text fields plus `images: ReceivedImage[]`.
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

  get baseUrl(): string {
    return `http://127.0.0.1:${(this.server!.address() as AddressInfo).port}/v1`;
  }

  setDelay(ms: number): void {
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
    if (req.method === 'GET' && path.startsWith('/v1/files/')) return this.serveFile(path, res);
    const contentType = String(req.headers['content-type'] ?? '');
    let body: RecordedBody;
    let files: ReceivedFile[] = [];
    if (contentType.startsWith('multipart/form-data')) {
      try {
        ({ body, files } = await readMultipart(Buffer.concat(chunks), contentType));
      } catch {
        return send(res, 400, openAiError('invalid multipart body', 'invalid_request_error'));
      }
    } else {
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}');
      } catch {
        return send(res, 400, openAiError('invalid JSON body', 'invalid_request_error'));
      }
    }
    this.calls.push({ path, body, at: Date.now() });
    this.inFlight++;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    try {
      if (this.options.delayMs) await new Promise((r) => setTimeout(r, this.options.delayMs));
      if (this.options.apiKey && req.headers.authorization !== `Bearer ${this.options.apiKey}`) {
        return send(res, 401, openAiError('Incorrect API key provided', 'invalid_request_error', 'invalid_api_key'));
      }
      const failure = this.failures[0];
      if (failure) {
        if (--failure.times <= 0) this.failures.shift();
        if (failure.dropConnection) return void req.socket.destroy();
        const status = failure.status ?? 500;
        const error =
          status === 429
            ? openAiError('Rate limit reached', 'requests', 'rate_limit_exceeded')
            : openAiError('The server had an error', 'server_error');
        return send(res, status, failure.body ?? error, status === 429 ? { 'retry-after': '0' } : {});
      }
      if (req.method === 'POST' && path === '/v1/embeddings')
        return send(res, 200, this.embeddings(body as EmbeddingsRequest));
      if (req.method === 'POST' && path === '/v1/chat/completions' && body.stream)
        return await this.chatStream(body as ChatRequest, res);
      if (req.method === 'POST' && path === '/v1/chat/completions')
        return send(res, 200, this.chat(body as ChatRequest));
      if (req.method === 'POST' && path === '/v1/images/edits') {
        const { status, answer } = await this.imageEdit(body, files);
        return send(res, status, answer);
      }
      return send(
        res,
        404,
        openAiError(`Unknown request URL: ${req.method} ${path}`, 'invalid_request_error', 'unknown_url'),
      );
    } finally {
      this.inFlight--;
    }
  }

  private embeddings(body: EmbeddingsRequest) {
    const inputs: string[] = typeof body.input === 'string' ? [body.input] : body.input;
    const length =
      this.options.honoursDimensions !== false && body.dimensions
        ? body.dimensions
        : (this.options.nativeDimensions ?? 1024);
    const tokens = inputs.reduce((sum, text) => sum + Math.ceil(text.length / 4), 0);
    return {
      object: 'list',
      data: inputs.map((text, index) => ({ object: 'embedding', index, embedding: fakeVector(text, length) })),
      model: body.model,
      usage: { prompt_tokens: tokens, total_tokens: tokens },
    };
  }

  private chat(body: ChatRequest) {
    const lastUser = [...body.messages].reverse().find((m) => m.role === 'user')?.content ?? '';
    const content = this.options.chatReply ?? `echo: ${lastUser}`;
    const promptTokens = body.messages.reduce((sum, m) => sum + Math.ceil(String(m.content).length / 4), 0);
    const completionTokens = Math.ceil(content.length / 4);
    return {
      id: `chatcmpl-fake${this.calls.length}`,
      object: 'chat.completion',
      created: Math.floor(Date.now() / 1000),
      model: body.model,
      choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
      usage: {
        prompt_tokens: promptTokens,
        completion_tokens: completionTokens,
        total_tokens: promptTokens + completionTokens,
      },
    };
  }

  /**
   * OpenAI's streamed chat: SSE `chat.completion.chunk` events (the role, then the answer word by word, then the
   * finish reason), a usage chunk when `stream_options.include_usage` is set, then `data: [DONE]`. Records how many
   * content chunks went out before the client hung up, in `streamed`.
   */
  private async chatStream(body: ChatRequest, res: ServerResponse): Promise<void> {
    const whole = this.chat(body);
    const base = { id: whole.id, object: 'chat.completion.chunk', created: whole.created, model: body.model };
    const pieces = whole.choices[0].message.content.split(/(?<= )/);
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    const event = (data: unknown) => res.write(`data: ${JSON.stringify(data)}\n\n`);
    const record = { total: pieces.length, sent: 0, closedEarly: false };
    this.streamed.push(record);
    res.once('close', () => (record.closedEarly = !res.writableFinished));
    event({ ...base, choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }] });
    for (const piece of pieces) {
      if (res.destroyed) return;
      if (this.options.streamChunkDelayMs) await new Promise((r) => setTimeout(r, this.options.streamChunkDelayMs));
      if (res.destroyed) return;
      event({ ...base, choices: [{ index: 0, delta: { content: piece }, finish_reason: null }] });
      record.sent++;
    }
    event({ ...base, choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] });
    if (body.stream_options?.include_usage) event({ ...base, choices: [], usage: whole.usage });
    res.end('data: [DONE]\n\n');
  }

  /** Validates like OpenAI's edit endpoint, then edits the last image: resized to `size` (default 1024x1024), tinted per prompt. */
  private async imageEdit(body: ImageEditRequest, parts: ReceivedFile[]): Promise<{ status: number; answer: unknown }> {
    const files = parts.filter((part) => part.field === 'image' || part.field === 'image[]');
    const invalid = (message: string, param: string, code: string) => ({
      status: 400,
      answer: { error: { message, type: 'invalid_request_error', param, code } },
    });
    const { prompt } = body;
    if (!prompt) return invalid("Missing required parameter: 'prompt'.", 'prompt', 'missing_required_parameter');
    if (files.length === 0)
      return invalid("Missing required parameter: 'image'.", 'image', 'missing_required_parameter');
    if (String(body.model ?? '').startsWith('gpt-image') && body.response_format !== undefined) {
      return invalid("Unknown parameter: 'response_format'.", 'response_format', 'unknown_parameter');
    }
    if (body.response_format !== undefined && !['url', 'b64_json'].includes(body.response_format)) {
      return invalid(
        `Invalid value: '${body.response_format}'. Supported values are: 'url' and 'b64_json'.`,
        'response_format',
        'invalid_value',
      );
    }
    const n = body.n === undefined ? 1 : Number(body.n);
    if (!Number.isInteger(n) || n < 1 || n > 10)
      return invalid(`Invalid value for 'n': ${body.n}.`, 'n', 'invalid_value');
    const size = /^(\d+)x(\d+)$/.exec(body.size ?? '1024x1024');
    if (!size && body.size !== 'auto') return invalid(`Invalid value: '${body.size}'.`, 'size', 'invalid_value');
    const undecodable = files.findIndex((file) => file.width === undefined);
    if (undecodable >= 0)
      return invalid(
        `Invalid image file or mode for image ${undecodable + 1}, please check your image file.`,
        'image',
        'invalid_image_file',
      );
    const [width, height] = size ? [Number(size[1]), Number(size[2])] : [1024, 1024];
    const last = files[files.length - 1].data;
    const data = await Promise.all(
      Array.from({ length: n }, async (_, i) => {
        const png = await renderFakeEdit(last, width, height, textSeed(prompt) + i);
        return { ...this.imageAnswer(png), revised_prompt: `revised: ${prompt}` };
      }),
    );
    return { status: 200, answer: { created: Math.floor(Date.now() / 1000), data } };
  }

  private imageAnswer(png: Buffer): { b64_json: string } | { url: string } {
    if (!this.options.imagesAsUrl) return { b64_json: png.toString('base64') };
    const id = randomBytes(8).toString('hex');
    this.files.set(id, png);
    return { url: `${this.baseUrl}/files/${id}.png` };
  }

  private serveFile(path: string, res: ServerResponse): void {
    const file = this.files.get(path.slice('/v1/files/'.length).replace(/\.png$/, ''));
    if (!file) return send(res, 404, openAiError('file not found', 'invalid_request_error'));
    res.writeHead(200, { 'content-type': 'image/png', 'content-length': file.length });
    res.end(file);
  }
}

interface ReceivedFile {
  field: string;
  data: Buffer;
  width?: number;
}

/** Parses a multipart body with undici's own parser; the recorded body keeps text fields and a summary of each image. */
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

function openAiError(message: string, type: string, code: string | null = null) {
  return { error: { message, type, param: null, code } };
}

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

// `node openai-fake.js --port N [--latency-ms M]` runs it standalone (benchmarks, manual tries); --latency-ms holds
// every answer that long (bench:held's slow upstream), and without it answers come at once.
if (require.main === module) {
  const { values } = parseArgs({
    options: { port: { type: 'string', default: '0' }, 'latency-ms': { type: 'string', default: '0' } },
  });
  const port = Number(values.port);
  const delayMs = Number(values['latency-ms']);
  if (!Number.isInteger(port) || !Number.isInteger(delayMs) || delayMs < 0) {
    process.stderr.write('usage: openai-fake.ts [--port N] [--latency-ms M]\n');
    process.exit(2);
  }
  void new OpenAiFake({ delayMs }).start(port).then((fake) => process.stdout.write(`${fake.baseUrl}\n`));
}
