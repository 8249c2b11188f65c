/**
 * A fault-injecting HTTP proxy in front of one upstream fake (test/fakes): every call waits a random latency, then
 * is forwarded unchanged, answered 500, or held without an answer, depending on the mode it arrived in. The chaos
 * bench points UPSTREAM_<NAME>_BASE_URL here, so the gateway meets a slow upstream that fails or hangs on cue while
 * the fakes themselves stay as the e2e suites know them.
 */
import http, { IncomingMessage, Server, ServerResponse } from 'node:http';
import { AddressInfo } from 'node:net';

export type UpstreamMode = 'normal' | 'failing' | 'hanging';

/** Hop-by-hop headers, which a proxy does not pass on. */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'upgrade', 'host', 'proxy-connection']);

export class FaultyUpstream {
  mode: UpstreamMode = 'normal';
  /** Calls seen, by the mode they arrived in. */
  readonly calls: Record<UpstreamMode, number> = { normal: 0, failing: 0, hanging: 0 };
  private server?: Server;
  private readonly agent = new http.Agent({ keepAlive: true, maxSockets: 512 });
  private readonly held = new Set<ServerResponse>();

  /** `target`: the fake's root URL; every path is forwarded under it as received. */
  constructor(
    private readonly target: string,
    private readonly latency: { minMs: number; maxMs: number },
  ) {}

  /** This proxy's root, as a base URL takes it (append the fake's own path, such as /v1). */
  get url(): string {
    return `http://127.0.0.1:${(this.server!.address() as AddressInfo).port}`;
  }

  async start(): Promise<this> {
    this.server = http.createServer((req, res) => this.handle(req, res));
    this.server.keepAliveTimeout = 60_000;
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return this;
  }

  /** Closes every connection, held calls included. */
  async stop(): Promise<void> {
    for (const res of this.held) res.destroy();
    this.held.clear();
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
    this.agent.destroy();
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const mode = this.mode;
    this.calls[mode]++;
    if (mode === 'hanging') {
      // Read the body so the caller is not blocked sending it, then never answer: the caller's timeout ends it.
      req.resume();
      this.held.add(res);
      res.once('close', () => this.held.delete(res));
      return;
    }
    const { minMs, maxMs } = this.latency;
    const delay = minMs + Math.random() * (maxMs - minMs);
    if (mode === 'failing') {
      req.resume();
      setTimeout(() => failed(res), delay);
      return;
    }
    // The body is buffered by the socket while the latency passes; forwarding starts afterwards.
    req.pause();
    setTimeout(() => this.forward(req, res), delay);
  }

  private forward(req: IncomingMessage, res: ServerResponse): void {
    const headers = Object.fromEntries(Object.entries(req.headers).filter(([name]) => !HOP_BY_HOP.has(name)));
    const upstream = http.request(
      `${this.target}${req.url ?? '/'}`,
      { method: req.method, headers, agent: this.agent },
      (answer) => {
        // Node frames the body itself (chunked when the fake sent no length).
        const passed = Object.fromEntries(Object.entries(answer.headers).filter(([name]) => !HOP_BY_HOP.has(name)));
        res.writeHead(answer.statusCode ?? 502, passed);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => res.destroy());
    res.once('close', () => {
      if (!res.writableFinished) upstream.destroy();
    });
    req.pipe(upstream);
    req.resume();
  }
}

/** A 500 both adapters read as an upstream server error: OpenAI's error object and DashScope's code and message. */
function failed(res: ServerResponse): void {
  if (res.destroyed) return;
  const body = JSON.stringify({
    error: { message: 'The server had an error (injected by the chaos bench)', type: 'server_error', code: null },
    code: 'InternalError',
    message: 'The server had an error (injected by the chaos bench)',
  });
  res.writeHead(500, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}
