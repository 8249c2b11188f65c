import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer as createHttpServer, IncomingMessage, RequestListener, Server, ServerResponse } from 'node:http';
import { createServer as createHttpsServer, Server as HttpsServer } from 'node:https';
import { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HostResolver } from './dns-pinning';
import { DEFAULT_OUTBOUND_POLICY, OutboundPolicy } from './outbound-policy';
import { SafeFetcher, SafeFetchOptions } from './safe-fetcher';

/** Linux routes all of 127/8 over lo, so 127.0.0.2 is a second loopback host that a test can allow on its own. */
const ALLOWED_HOST = '127.0.0.2';
const ALLOW_ALLOWED_HOST: OutboundPolicy = { allowPrivate: false, allowCidrs: [`${ALLOWED_HOST}/32`] };
const DEFAULT_OPTIONS: SafeFetchOptions = { maxBytes: 1024 * 1024, timeoutMs: 5_000, maxRedirects: 3 };

interface TestServer {
  port: number;
  /** TCP connections accepted: a refused fetch must not even connect. */
  connections: number;
  requests: string[];
  url(path?: string): string;
}

const servers: (Server | HttpsServer)[] = [];
const fetchers: SafeFetcher[] = [];

/** A real server on `host`; pass an https server to serve TLS. */
async function startServer(
  host: string,
  handler: RequestListener = (_req, res) => res.end('ok'),
  server: Server | HttpsServer = createHttpServer(),
): Promise<TestServer> {
  const protocol = server instanceof HttpsServer ? 'https' : 'http';
  const state: TestServer = {
    port: 0,
    connections: 0,
    requests: [],
    url: (path = '/') => `${protocol}://${host.includes(':') ? `[${host}]` : host}:${state.port}${path}`,
  };
  server.on('connection', () => state.connections++);
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    state.requests.push(req.url ?? '');
    handler(req, res);
  });
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(0, host, resolve));
  state.port = (server.address() as AddressInfo).port;
  servers.push(server);
  return state;
}

function fetcher(policy: OutboundPolicy, options: Partial<SafeFetchOptions> = {}): SafeFetcher {
  const created = new SafeFetcher(policy, { ...DEFAULT_OPTIONS, ...options });
  fetchers.push(created);
  return created;
}

/** Jest compares errors by message only; these also pin the class, by its name. */
const refused = (message: string) => expect.objectContaining({ name: 'UnsafeUrlError', message });
const failed = (message: string) => expect.objectContaining({ name: 'FetchFailedError', message });

async function failure(promise: Promise<unknown>): Promise<Error> {
  return promise.then(
    () => {
      throw new Error('expected the fetch to fail');
    },
    (error: Error) => error,
  );
}

/** Serves a chunked body of `total` bytes in 64 KB writes, honouring backpressure, counting what went out before the client hung up. */
function streamingServer(total: number): {
  handler: RequestListener;
  sent: { bytes: number; finished: Promise<void> };
} {
  const chunk = Buffer.alloc(64 * 1024, 0x61);
  const sent = { bytes: 0, finished: Promise.resolve() };
  const handler: RequestListener = (_req, res) => {
    res.writeHead(200, { 'content-type': 'image/png' });
    sent.finished = (async () => {
      while (sent.bytes < total && !res.destroyed) {
        sent.bytes += chunk.length;
        if (!res.write(chunk)) await writable(res);
      }
      res.end();
    })();
  };
  return { handler, sent };
}

/** Resolves on 'drain' or 'close', whichever comes first, leaving no listener behind. */
function writable(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done).off('close', done);
      resolve();
    };
    res.on('drain', done).on('close', done);
  });
}

async function canListenOnIpv6Loopback(): Promise<boolean> {
  const probe = createHttpServer();
  return new Promise((resolve) =>
    probe.once('error', () => resolve(false)).listen(0, '::1', () => probe.close(() => resolve(true))),
  );
}

afterEach(async () => {
  await Promise.all(fetchers.splice(0).map((f) => f.close()));
  await Promise.all(
    servers.splice(0).map((server) => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(resolve));
    }),
  );
});

describe('SafeFetcher', () => {
  describe('refuses, without connecting, under the default policy', () => {
    it.each([
      ['IPv4 loopback', (port: number) => `http://127.0.0.1:${port}/`, '127.0.0.1 is a loopback address'],
      ['IPv4 loopback in decimal', (port: number) => `http://2130706433:${port}/`, '127.0.0.1 is a loopback address'],
      ['IPv4 loopback in shorthand', (port: number) => `http://127.1:${port}/`, '127.0.0.1 is a loopback address'],
      [
        'IPv4-mapped IPv6 loopback',
        (port: number) => `http://[::ffff:127.0.0.1]:${port}/`,
        '[::ffff:7f00:1] is a loopback address',
      ],
      [
        'a name that resolves to loopback',
        (port: number) => `http://localhost:${port}/`,
        'localhost resolves to a loopback address',
      ],
      ['the unspecified address', (port: number) => `http://0.0.0.0:${port}/`, '0.0.0.0 is an unspecified address'],
    ])('%s', async (_name, url, message) => {
      const server = await startServer('127.0.0.1');
      expect(await failure(fetcher(DEFAULT_OUTBOUND_POLICY).fetch(url(server.port)))).toEqual(refused(message));
      expect(server.connections).toBe(0);
    });

    it('IPv6 loopback', async () => {
      if (!(await canListenOnIpv6Loopback())) return console.warn('skipped: no IPv6 loopback here');
      const server = await startServer('::1');
      const error = await failure(fetcher(DEFAULT_OUTBOUND_POLICY).fetch(server.url()));
      expect(error).toEqual(refused('[::1] is a loopback address'));
      expect(server.connections).toBe(0);
    });

    it('the cloud metadata address', async () => {
      const error = await failure(fetcher(DEFAULT_OUTBOUND_POLICY).fetch('http://169.254.169.254/latest/meta-data/'));
      expect(error).toEqual(refused('169.254.169.254 is a cloud metadata address'));
    });

    it.each([
      ['ftp://example.com/a.png', 'URL scheme must be http or https'],
      ['file:///etc/passwd', 'URL scheme must be http or https'],
      ['gopher://example.com/', 'URL scheme must be http or https'],
      ['not a url', 'not a valid URL'],
    ])('%s', async (url, message) => {
      expect(await failure(fetcher(DEFAULT_OUTBOUND_POLICY).fetch(url))).toEqual(refused(message));
    });

    it('a URL with credentials, even to an allowed host', async () => {
      const server = await startServer(ALLOWED_HOST);
      const error = await failure(
        fetcher(ALLOW_ALLOWED_HOST).fetch(`http://user:pass@${ALLOWED_HOST}:${server.port}/`),
      );
      expect(error).toEqual(refused('URL must not contain credentials'));
      expect(server.connections).toBe(0);
    });
  });

  describe('redirects', () => {
    it('re-checks every hop: a redirect to a private address is refused and never connected', async () => {
      const internal = await startServer('127.0.0.1');
      const outside = await startServer(ALLOWED_HOST, (_req, res) =>
        res.writeHead(302, { location: internal.url('/secret') }).end(),
      );
      const error = await failure(fetcher(ALLOW_ALLOWED_HOST).fetch(outside.url('/image.png')));
      expect(error).toEqual(refused('127.0.0.1 is a loopback address'));
      expect(outside.requests).toEqual(['/image.png']);
      expect(internal.connections).toBe(0);
    });

    it('re-checks every hop: a redirect to a name that resolves privately is refused and never connected', async () => {
      const internal = await startServer('127.0.0.1');
      const outside = await startServer(ALLOWED_HOST, (_req, res) =>
        res.writeHead(307, { location: `http://localhost:${internal.port}/` }).end(),
      );
      expect(await failure(fetcher(ALLOW_ALLOWED_HOST).fetch(outside.url()))).toEqual(
        refused('localhost resolves to a loopback address'),
      );
      expect(internal.connections).toBe(0);
    });

    it('refuses a redirect to another scheme', async () => {
      const outside = await startServer(ALLOWED_HOST, (_req, res) =>
        res.writeHead(301, { location: 'file:///etc/passwd' }).end(),
      );
      expect(await failure(fetcher(ALLOW_ALLOWED_HOST).fetch(outside.url()))).toEqual(
        refused('URL scheme must be http or https'),
      );
    });

    /** /hop/3 → /hop/2 → /hop/1 → /hop/0 (the image), with relative Locations. */
    const hops: RequestListener = (req, res) => {
      const left = Number(req.url!.split('/').pop());
      if (left === 0) return res.writeHead(200, { 'content-type': 'image/png' }).end('final');
      res.writeHead(left % 2 ? 302 : 308, { location: `${left - 1}` }).end();
    };

    it('follows up to maxRedirects, resolving relative Locations', async () => {
      const server = await startServer(ALLOWED_HOST, hops);
      const fetched = await fetcher(ALLOW_ALLOWED_HOST, { maxRedirects: 3 }).fetch(server.url('/hop/3'));
      expect(fetched).toEqual({
        bytes: Buffer.from('final'),
        contentType: 'image/png',
        finalUrl: server.url('/hop/0'),
        reach: { direct: false, publicHost: false, declaredLength: false },
      });
      expect(server.requests).toEqual(['/hop/3', '/hop/2', '/hop/1', '/hop/0']);
    });

    it('refuses one redirect more than maxRedirects', async () => {
      const server = await startServer(ALLOWED_HOST, hops);
      expect(await failure(fetcher(ALLOW_ALLOWED_HOST, { maxRedirects: 3 }).fetch(server.url('/hop/4')))).toEqual(
        refused('more than 3 redirects'),
      );
      expect(server.requests).toEqual(['/hop/4', '/hop/3', '/hop/2', '/hop/1']);
    });
  });

  describe('allowed destinations', () => {
    it('fetches from an address opened by allowCidrs', async () => {
      const server = await startServer(ALLOWED_HOST, (_req, res) =>
        res.writeHead(200, { 'content-type': 'image/jpeg', 'content-length': 10 }).end('jpeg bytes'),
      );
      expect(await fetcher(ALLOW_ALLOWED_HOST).fetch(server.url('/a.jpg'))).toEqual({
        bytes: Buffer.from('jpeg bytes'),
        contentType: 'image/jpeg',
        finalUrl: server.url('/a.jpg'),
        // Reached only through the allow-list: no party outside could fetch it alike.
        reach: { direct: true, publicHost: false, declaredLength: true },
      });
    });

    it('fetches from loopback by address and by name when allowPrivate is on', async () => {
      const server = await startServer('127.0.0.1');
      const dev = fetcher({ allowPrivate: true, allowCidrs: [] });
      expect((await dev.fetch(server.url())).bytes.toString()).toBe('ok');
      expect((await dev.fetch(`http://localhost:${server.port}/`)).bytes.toString()).toBe('ok');
    });

    it('fetches from IPv6 loopback when allowPrivate is on', async () => {
      if (!(await canListenOnIpv6Loopback())) return console.warn('skipped: no IPv6 loopback here');
      const server = await startServer('::1');
      expect((await fetcher({ allowPrivate: true, allowCidrs: [] }).fetch(server.url())).bytes.toString()).toBe('ok');
    });
  });

  describe('DNS pinning', () => {
    it('resolves once and connects to exactly the address it checked (no DNS rebinding)', async () => {
      const checked = await startServer(ALLOWED_HOST);
      const rebound = await startServer('127.0.0.1');
      const answers = [ALLOWED_HOST, '127.0.0.1'];
      const lookups: string[] = [];
      // A rebinding resolver: allowed on the first answer, internal on every later one.
      const resolve: HostResolver = (hostname) => {
        lookups.push(hostname);
        return Promise.resolve([{ address: answers[Math.min(lookups.length - 1, 1)], family: 4 }]);
      };
      const fetched = await fetcher(ALLOW_ALLOWED_HOST, { resolve }).fetch(`http://images.example:${checked.port}/`);
      expect(fetched.bytes.toString()).toBe('ok');
      expect(lookups).toEqual(['images.example']);
      expect(checked.requests).toEqual(['/']);
      expect(rebound.connections).toBe(0);
    });

    it('refuses a name when any of its addresses is refused', async () => {
      const server = await startServer(ALLOWED_HOST);
      const resolve: HostResolver = () =>
        Promise.resolve([
          { address: ALLOWED_HOST, family: 4 },
          { address: '10.0.0.7', family: 4 },
        ]);
      const error = await failure(
        fetcher(ALLOW_ALLOWED_HOST, { resolve }).fetch(`http://mixed.example:${server.port}/`),
      );
      expect(error).toEqual(refused('mixed.example resolves to a private address'));
      expect(error.message).not.toContain('10.0.0.7');
      expect(server.connections).toBe(0);
    });

    it('reports a name that resolves into the allow-list as not public, and an answer without Content-Length', async () => {
      const server = await startServer(ALLOWED_HOST, (_req, res) => {
        // Chunked: no Content-Length.
        res.writeHead(200, { 'content-type': 'image/png' });
        res.write('chunk');
        res.end();
      });
      const resolve: HostResolver = () => Promise.resolve([{ address: ALLOWED_HOST, family: 4 }]);
      const fetched = await fetcher(ALLOW_ALLOWED_HOST, { resolve }).fetch(`http://cdn.example:${server.port}/`);
      expect(fetched.reach).toEqual({ direct: true, publicHost: false, declaredLength: false });
    });

    it('reports a name that does not resolve', async () => {
      const resolve: HostResolver = () =>
        Promise.reject(Object.assign(new Error('getaddrinfo ENOTFOUND nowhere.example'), { code: 'ENOTFOUND' }));
      const error = await failure(fetcher(DEFAULT_OUTBOUND_POLICY, { resolve }).fetch('http://nowhere.example/'));
      expect(error).toEqual(failed('could not resolve nowhere.example'));
    });
  });

  describe('failures', () => {
    it('fails on a non-2xx status', async () => {
      const server = await startServer(ALLOWED_HOST, (_req, res) => res.writeHead(404).end('not here'));
      const error = await failure(fetcher(ALLOW_ALLOWED_HOST).fetch(server.url('/missing.png')));
      expect(error).toEqual(failed(`${ALLOWED_HOST}:${server.port} answered HTTP 404`));
    });

    it('fails on a closed port without repeating the socket error', async () => {
      const server = await startServer(ALLOWED_HOST);
      const url = server.url();
      await new Promise((resolve) => servers.pop()!.close(resolve));
      const error = await failure(fetcher(ALLOW_ALLOWED_HOST).fetch(url));
      expect(error).toEqual(failed(`${ALLOWED_HOST}:${server.port} refused the connection`));
      expect(error.message).not.toContain('ECONNREFUSED');
    });

    it('refuses on a Content-Length over maxBytes before any of the body arrives', async () => {
      let closedByClient = false;
      const server = await startServer(ALLOWED_HOST, (_req, res) => {
        // Headers only: a fetcher that waited for the body would hang here until its timeout.
        res.writeHead(200, { 'content-length': String(64 * 1024 * 1024) }).flushHeaders();
        res.once('close', () => (closedByClient = true));
      });
      const started = Date.now();
      const error = await failure(
        fetcher(ALLOW_ALLOWED_HOST, { maxBytes: 1024 * 1024, timeoutMs: 10_000 }).fetch(server.url()),
      );
      expect(error).toEqual(failed('response is larger than 1 MB'));
      expect(Date.now() - started).toBeLessThan(2_000);
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(closedByClient).toBe(true);
    });

    it('aborts a chunked body as soon as it passes maxBytes, instead of downloading it all', async () => {
      const { handler, sent } = streamingServer(64 * 1024 * 1024);
      const server = await startServer(ALLOWED_HOST, handler);
      const error = await failure(fetcher(ALLOW_ALLOWED_HOST, { maxBytes: 1024 * 1024 }).fetch(server.url()));
      expect(error).toEqual(failed('response is larger than 1 MB'));
      await sent.finished;
      // What the server got out before the connection dropped: the cap plus socket buffers, far from 64 MB.
      expect(sent.bytes).toBeGreaterThan(1024 * 1024);
      expect(sent.bytes).toBeLessThan(16 * 1024 * 1024);
    });

    it('accepts a body of exactly maxBytes', async () => {
      const server = await startServer(ALLOWED_HOST, (_req, res) => res.end(Buffer.alloc(4096, 1)));
      expect((await fetcher(ALLOW_ALLOWED_HOST, { maxBytes: 4096 }).fetch(server.url())).bytes).toHaveLength(4096);
    });

    it('times out on a server that never answers', async () => {
      const server = await startServer(ALLOWED_HOST, () => undefined);
      const started = Date.now();
      expect(await failure(fetcher(ALLOW_ALLOWED_HOST, { timeoutMs: 300 }).fetch(server.url()))).toEqual(
        failed('timed out after 300 ms'),
      );
      expect(Date.now() - started).toBeLessThan(2_000);
      expect(server.requests).toEqual(['/']);
    });

    it('times out on a body that trickles in, the timeout covering the whole fetch', async () => {
      const server = await startServer(ALLOWED_HOST, (_req, res) => {
        res.writeHead(200);
        const drip = setInterval(() => res.write('x'), 50);
        res.once('close', () => clearInterval(drip));
      });
      expect(await failure(fetcher(ALLOW_ALLOWED_HOST, { timeoutMs: 300 }).fetch(server.url()))).toEqual(
        failed('timed out after 300 ms'),
      );
    });
  });

  describe('TLS', () => {
    const certificate = selfSignedCertificate();

    (certificate ? it : it.skip)(
      'keeps SNI and certificate checks: the host name is sent, an untrusted certificate fails',
      async () => {
        const servernames: (string | undefined)[] = [];
        const https = createHttpsServer({
          ...certificate!,
          SNICallback: (servername, done) => {
            servernames.push(servername);
            done(null);
          },
        });
        const server = await startServer('127.0.0.1', undefined, https);
        const error = await failure(
          fetcher({ allowPrivate: true, allowCidrs: [] }).fetch(server.url().replace('127.0.0.1', 'localhost')),
        );
        expect(error).toEqual(failed(`localhost:${server.port} presented a TLS certificate that is not trusted`));
        expect(servernames).toEqual(['localhost']);
        expect(server.requests).toEqual([]);
      },
    );
  });
});

/** A throwaway self-signed certificate for localhost, or null where openssl is not installed. */
function selfSignedCertificate(): { key: Buffer; cert: Buffer } | null {
  const dir = mkdtempSync(join(tmpdir(), 'safe-fetcher-tls-'));
  try {
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-days',
        '1',
        '-subj',
        '/CN=localhost',
        '-keyout',
        join(dir, 'key.pem'),
        '-out',
        join(dir, 'cert.pem'),
      ],
      { stdio: 'ignore' },
    );
    return { key: readFileSync(join(dir, 'key.pem')), cert: readFileSync(join(dir, 'cert.pem')) };
  } catch {
    return null;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
