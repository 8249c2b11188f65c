import { DEFAULT_OUTBOUND_POLICY, HostResolver, OutboundPolicy } from '@gateway/outbound';
import { createServer, IncomingHttpHeaders, IncomingMessage, Server, ServerResponse } from 'node:http';
import { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { readmeVerifier } from '../../../test/helpers/webhook-receiver';
import { signWebhookMessage, WebhookMessage } from './webhook-signature';
import { DeliveryResult, storableText, WebhookSender } from './webhook-sender';

const SECRET = 'ss-5Fh8Kq2Lm9Np3Rt7Vx1Zb4Dg6Jk0Ws2Yc8Ue5Ia7Oq3';
const ALLOW_LOOPBACK: OutboundPolicy = { allowPrivate: false, allowCidrs: ['127.0.0.1/32'] };
const BODY = JSON.stringify({ type: 'task.succeeded', data: { task_id: 'task_abc' } });
/** Receivers verify with the README's snippet. */
const verifyWebhook = readmeVerifier(join(__dirname, '..', '..', '..'));

interface Receiver {
  /** TCP connections accepted: a refused delivery must not even connect. */
  connections: number;
  requests: { method: string; url: string; headers: IncomingHttpHeaders; body: string }[];
  url(path?: string): string;
}

const servers: Server[] = [];
const senders: WebhookSender[] = [];

async function startReceiver(
  answer: (req: IncomingMessage, res: ServerResponse) => void = (_req, res) => res.end(),
): Promise<Receiver> {
  const server = createServer();
  let port = 0;
  const receiver: Receiver = {
    connections: 0,
    requests: [],
    url: (path = '/hooks') => `http://127.0.0.1:${port}${path}`,
  };
  server.on('connection', () => receiver.connections++);
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      receiver.requests.push({
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      });
      answer(req, res);
    });
  });
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
  servers.push(server);
  return receiver;
}

function sender(policy: OutboundPolicy = ALLOW_LOOPBACK, timeoutMs = 5_000, resolve?: HostResolver): WebhookSender {
  const created = new WebhookSender(policy, timeoutMs, resolve);
  senders.push(created);
  return created;
}

function message(nowMs = Date.now()): WebhookMessage {
  return signWebhookMessage(SECRET, 'msg_task_abc_succeeded', BODY, nowMs);
}

const answering =
  (status: number, body = '', headers: Record<string, string> = {}) =>
  (_req: IncomingMessage, res: ServerResponse) => {
    res.writeHead(status, headers);
    res.end(body);
  };

async function deliverTo(status: number, body?: string, headers?: Record<string, string>): Promise<DeliveryResult> {
  const receiver = await startReceiver(answering(status, body, headers));
  return sender().send(receiver.url(), message());
}

afterEach(async () => {
  await Promise.all(senders.splice(0).map((s) => s.close()));
  await Promise.all(
    servers.splice(0).map((server) => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(resolve));
    }),
  );
});

describe('WebhookSender', () => {
  it('POSTs the body with Standard Webhooks headers that verify against the Secret Key', async () => {
    const receiver = await startReceiver();
    const sent = message();
    await sender().send(receiver.url('/hooks?token=abc'), sent);

    expect(receiver.requests).toHaveLength(1);
    const [request] = receiver.requests;
    expect(request).toMatchObject({ method: 'POST', url: '/hooks?token=abc', body: BODY });
    expect(request.headers).toMatchObject({
      'content-type': 'application/json',
      'user-agent': 'model-gateway-webhooks',
      'webhook-id': 'msg_task_abc_succeeded',
      'webhook-timestamp': String(sent.timestamp),
      'webhook-signature': sent.signature,
    });
    expect(verifyWebhook(SECRET, request.headers as Record<string, string>, request.body)).toBe(true);
    expect(verifyWebhook('ss-another-secret', request.headers as Record<string, string>, request.body)).toBe(false);
  });

  it('counts 200 as delivered and keeps the start of the answer', async () => {
    const result = await deliverTo(200, '{"ok":true}');
    expect(result).toEqual({
      outcome: 'delivered',
      httpStatus: 200,
      durationMs: expect.any(Number),
      responseSnippet: '{"ok":true}',
    });
  });

  it('counts 204 as delivered, with no snippet', async () => {
    const result = await deliverTo(204);
    expect(result).toEqual({ outcome: 'delivered', httpStatus: 204, durationMs: expect.any(Number) });
  });

  it('keeps only the first 200 characters of a long answer', async () => {
    const result = await deliverTo(500, 'x'.repeat(2 * 1024 * 1024));
    expect(result.responseSnippet).toBe('x'.repeat(200));
  });

  it('keeps an answer the database can store: U+0000 and a surrogate pair cut at 200 characters become U+FFFD', async () => {
    const result = await deliverTo(200, `ok\u0000${'x'.repeat(196)}\u{1F600}\u{1F600}`);
    expect(result.responseSnippet).toBe(`ok\uFFFD${'x'.repeat(196)}\uFFFD`);
    expect(storableText('a\u{1F600}b\uDE00')).toBe('a\u{1F600}b\uFFFD');
  });

  it('reports 410 as gone, which disables the callback', async () => {
    expect(await deliverTo(410, 'unsubscribed')).toEqual({
      outcome: 'gone',
      httpStatus: 410,
      error: 'answered HTTP 410 Gone; the callback is disabled until its URL is saved again',
      durationMs: expect.any(Number),
      responseSnippet: 'unsubscribed',
    });
  });

  it.each([429, 500, 502, 503])('retries after HTTP %i', async (status) => {
    expect(await deliverTo(status)).toMatchObject({
      outcome: 'retry',
      httpStatus: status,
      error: `answered HTTP ${status}`,
    });
  });

  it.each([400, 401, 404, 413])('does not retry HTTP %i', async (status) => {
    expect(await deliverTo(status, 'no such hook')).toMatchObject({
      outcome: 'rejected',
      httpStatus: status,
      error: `answered HTTP ${status}`,
      responseSnippet: 'no such hook',
    });
  });

  it.each([301, 302, 307, 308])('does not follow a %i redirect: its target sees no request', async (status) => {
    const target = await startReceiver();
    const redirector = await startReceiver(answering(status, '', { location: target.url() }));
    const result = await sender().send(redirector.url(), message());

    expect(result).toMatchObject({
      outcome: 'rejected',
      httpStatus: status,
      error: `answered HTTP ${status}; redirects are not followed, save the final URL as the callback URL`,
    });
    expect(redirector.requests).toHaveLength(1);
    expect(target.connections).toBe(0);
  });

  it('retries a receiver that does not answer in time', async () => {
    const receiver = await startReceiver(() => undefined);
    const result = await sender(ALLOW_LOOPBACK, 300).send(receiver.url(), message());

    expect(result).toEqual({ outcome: 'retry', error: 'no answer within 300 ms', durationMs: expect.any(Number) });
    expect(result.durationMs).toBeGreaterThanOrEqual(250);
    expect(result.durationMs).toBeLessThan(3_000);
    expect(receiver.requests).toHaveLength(1);
  });

  it('retries a receiver that answers its headers but stalls the body, on the status it sent', async () => {
    const receiver = await startReceiver((_req, res) => {
      res.writeHead(503);
      res.write('partial');
    });
    const result = await sender(ALLOW_LOOPBACK, 300).send(receiver.url(), message());
    expect(result).toMatchObject({ outcome: 'retry', httpStatus: 503, responseSnippet: 'partial' });
  });

  it('retries a refused connection, naming only the host', async () => {
    const receiver = await startReceiver();
    const url = receiver.url('/hooks?token=s3cr3t-query-token');
    await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));

    const result = await sender().send(url, message());
    expect(result).toMatchObject({ outcome: 'retry', error: `${new URL(url).host} refused the connection` });
    expect(result.error).not.toContain('s3cr3t');
  });

  it('refuses 127.0.0.1 under the default policy without connecting', async () => {
    const receiver = await startReceiver();
    const result = await sender(DEFAULT_OUTBOUND_POLICY).send(receiver.url(), message());

    expect(result).toEqual({
      outcome: 'rejected',
      error: '127.0.0.1 is a loopback address',
      durationMs: expect.any(Number),
    });
    expect(receiver.connections).toBe(0);
  });

  it('refuses a host name that resolves to a refused address without connecting', async () => {
    const receiver = await startReceiver();
    const toLoopback: HostResolver = () => Promise.resolve([{ address: '127.0.0.1', family: 4 }]);
    const url = receiver.url().replace('127.0.0.1', 'hooks.example.com');
    const result = await sender(DEFAULT_OUTBOUND_POLICY, 5_000, toLoopback).send(url, message());

    expect(result).toMatchObject({ outcome: 'rejected', error: 'hooks.example.com resolves to a loopback address' });
    expect(receiver.connections).toBe(0);
  });

  it('delivers to a host name whose addresses the policy allows', async () => {
    const receiver = await startReceiver();
    const toLoopback: HostResolver = () => Promise.resolve([{ address: '127.0.0.1', family: 4 }]);
    const url = receiver.url().replace('127.0.0.1', 'hooks.example.com');
    expect(await sender(ALLOW_LOOPBACK, 5_000, toLoopback).send(url, message())).toMatchObject({
      outcome: 'delivered',
      httpStatus: 200,
    });
    expect(receiver.requests[0].headers.host).toMatch(/^hooks\.example\.com:\d+$/);
  });

  it('retries a host name that does not resolve', async () => {
    const nowhere: HostResolver = () =>
      Promise.reject(Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' }));
    const result = await sender(ALLOW_LOOPBACK, 5_000, nowhere).send('http://hooks.example.com/hooks', message());
    expect(result).toMatchObject({ outcome: 'retry', error: 'could not resolve hooks.example.com' });
  });

  it.each([
    ['ftp://hooks.example.com/', 'URL scheme must be http or https'],
    ['http://user:pass@hooks.example.com/', 'URL must not contain credentials'],
    ['not a url', 'not a valid URL'],
    ['http://169.254.169.254/latest/meta-data', '169.254.169.254 is a cloud metadata address'],
  ])('rejects %s before connecting', async (url, error) => {
    expect(await sender(DEFAULT_OUTBOUND_POLICY).send(url, message())).toEqual({
      outcome: 'rejected',
      error,
      durationMs: expect.any(Number),
    });
  });
});
