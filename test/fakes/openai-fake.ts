import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { AddressInfo } from 'node:net';

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
}

/**
 * An OpenAI-style upstream over real HTTP: POST /v1/embeddings and /v1/chat/completions with OpenAI's request and
 * response shapes, error bodies ({"error":{message,type,code}}), 401 for a wrong key and scripted 429/5xx.
 * Embeddings are deterministic per text so tests can compare runs.
 */
export class OpenAiFake {
  readonly calls: { path: string; body: any; at: number }[] = [];
  inFlight = 0;
  maxInFlight = 0;
  private server?: Server;
  private failures: ScriptedFailure[] = [];

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
    this.failures = [];
    this.maxInFlight = 0;
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
    let body: any;
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}');
    } catch {
      return send(res, 400, openAiError('invalid JSON body', 'invalid_request_error'));
    }
    const path = (req.url ?? '').split('?')[0];
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
        const error = status === 429 ? openAiError('Rate limit reached', 'requests', 'rate_limit_exceeded') : openAiError('The server had an error', 'server_error');
        return send(res, status, failure.body ?? error, status === 429 ? { 'retry-after': '0' } : {});
      }
      if (req.method === 'POST' && path === '/v1/embeddings') return send(res, 200, this.embeddings(body));
      if (req.method === 'POST' && path === '/v1/chat/completions') return send(res, 200, this.chat(body));
      return send(res, 404, openAiError(`Unknown request URL: ${req.method} ${path}`, 'invalid_request_error', 'unknown_url'));
    } finally {
      this.inFlight--;
    }
  }

  private embeddings(body: any) {
    const inputs: string[] = typeof body.input === 'string' ? [body.input] : body.input;
    const length = this.options.honoursDimensions !== false && body.dimensions ? body.dimensions : this.options.nativeDimensions ?? 1024;
    const tokens = inputs.reduce((sum, text) => sum + Math.ceil(text.length / 4), 0);
    return {
      object: 'list',
      data: inputs.map((text, index) => ({ object: 'embedding', index, embedding: fakeVector(text, length) })),
      model: body.model,
      usage: { prompt_tokens: tokens, total_tokens: tokens },
    };
  }

  private chat(body: any) {
    const lastUser = [...body.messages].reverse().find((m: any) => m.role === 'user')?.content ?? '';
    const content = this.options.chatReply ?? `echo: ${lastUser}`;
    const promptTokens = body.messages.reduce((sum: number, m: any) => sum + Math.ceil(String(m.content).length / 4), 0);
    const completionTokens = Math.ceil(content.length / 4);
    return {
      id: `chatcmpl-fake${this.calls.length}`,
      object: 'chat.completion',
      created: Math.floor(Date.now() / 1000),
      model: body.model,
      choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
      usage: { prompt_tokens: promptTokens, completion_tokens: completionTokens, total_tokens: promptTokens + completionTokens },
    };
  }
}

/** A deterministic unit vector per text (float32-exact values so base64 round trips compare equal). */
export function fakeVector(text: string, length: number): number[] {
  let seed = 2166136261;
  for (const ch of text) seed = Math.imul(seed ^ ch.codePointAt(0)!, 16777619) >>> 0;
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

// `node openai-fake.js --port N` runs it standalone (benchmarks, manual tries).
if (require.main === module) {
  const port = Number(process.argv[process.argv.indexOf('--port') + 1] || 0);
  void new OpenAiFake().start(port).then((fake) => process.stdout.write(`${fake.baseUrl}\n`));
}
