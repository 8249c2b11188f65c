import { createServer, IncomingMessage, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { editBody, halvesPng, pixelsOf } from '../helpers/images';
import { createApplication, postJson, RunningApi, startApi, startWorker, testEnv } from '../helpers/gateway';
import { checkedFetch } from '../helpers/contract';

const PLUS = 'x-image-edit-plus';
const PARAM = 'input.messages[0].content[0].image';

/** A real image server on one loopback address; it records every request it receives. */
interface Answer {
  status: number;
  headers?: Record<string, string>;
  body?: Buffer;
}

async function imageServer(host: string, handler: (request: IncomingMessage) => Answer) {
  const hits: string[] = [];
  const server: Server = createServer((request, response) => {
    hits.push(request.url ?? '');
    const answer = handler(request);
    response.writeHead(answer.status, answer.headers);
    response.end(answer.body);
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const port = (server.address() as AddressInfo).port;
  return { hits, port, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

/** Image URLs are fetched by the worker behind the SSRF guard (docs/contracts.md): private destinations are refused. */
describe('POST /v1/images/edits with image URLs', () => {
  let api: RunningApi;
  let worker: { close(): Promise<void> };
  let apiKey: string;
  let png: Buffer;
  let internal: Awaited<ReturnType<typeof imageServer>>;
  let allowed: Awaited<ReturnType<typeof imageServer>>;

  beforeAll(async () => {
    png = await halvesPng(80, 40, [255, 0, 0], [0, 0, 255]);
    // 127.0.0.1 plays an internal service; 127.0.0.2 plays a host the operator allowed (OUTBOUND_ALLOW_CIDRS).
    internal = await imageServer('127.0.0.1', () => ({
      status: 200,
      headers: { 'content-type': 'image/png' },
      body: png,
    }));
    allowed = await imageServer('127.0.0.2', (request): Answer => {
      if (request.url === '/image.png') return { status: 200, headers: { 'content-type': 'image/png' }, body: png };
      if (request.url === '/to-internal')
        return { status: 302, headers: { location: `http://127.0.0.1:${internal.port}/secret.png` } };
      const hop = /^\/hop(\d)$/.exec(request.url ?? '');
      if (hop)
        return { status: 302, headers: { location: Number(hop[1]) > 1 ? `/hop${Number(hop[1]) - 1}` : '/image.png' } };
      if (request.url === '/not-found') return { status: 404, body: Buffer.from('nope') };
      return { status: 200, headers: { 'content-type': 'text/html' }, body: Buffer.from('<html></html>') };
    });
    const env = testEnv({ OUTBOUND_ALLOW_CIDRS: '127.0.0.2/32', IMAGE_FETCH_TIMEOUT_MS: 3000 });
    [api, worker] = await Promise.all([startApi(env), startWorker(env)]);
    ({ apiKey } = await createApplication(api));
  });

  afterAll(async () => {
    await Promise.all([api?.close(), worker?.close()]);
    await Promise.all([internal?.close(), allowed?.close()]);
  });

  const edit = (url: string) =>
    postJson(`${api.url}/v1/images/edits`, editBody(PLUS, [url], 'invert', { prompt_extend: false }), apiKey);

  it('fetches an image from an allowed host and edits it', async () => {
    const response = await edit(`http://127.0.0.2:${allowed.port}/image.png`);
    expect(response.status).toBe(200);
    const output = await checkedFetch(response.body.data[0].url);
    const pixels = await pixelsOf(Buffer.from(await output.arrayBuffer()));
    // Inverted red on the left.
    expect(pixels.at(5, pixels.height >> 1)).toEqual([0, 255, 255]);
  });

  it('follows up to three redirects', async () => {
    expect((await edit(`http://127.0.0.2:${allowed.port}/hop3`)).status).toBe(200);
    const tooMany = await edit(`http://127.0.0.2:${allowed.port}/hop4`);
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.error).toMatchObject({ code: 'InvalidImage', param: PARAM });
  });

  const refused = (name: string, url: () => string) =>
    it(`refuses ${name} without connecting to it`, async () => {
      const before = internal.hits.length;
      const response = await edit(url());
      expect(response.status).toBe(400);
      expect(response.body.error).toMatchObject({ code: 'InvalidImage', param: PARAM });
      expect(internal.hits.length).toBe(before);
    });

  refused('a loopback address', () => `http://127.0.0.1:${internal.port}/secret.png`);
  refused('the IPv6 loopback', () => `http://[::1]:${internal.port}/secret.png`);
  refused('an IPv4-mapped IPv6 loopback', () => `http://[::ffff:127.0.0.1]:${internal.port}/secret.png`);
  refused('the cloud metadata address', () => 'http://169.254.169.254/latest/meta-data/');
  refused('a private network address', () => 'http://10.0.0.1/image.png');
  refused('a name that resolves to a private address', () => `http://localhost:${internal.port}/secret.png`);
  refused('a redirect to a private address', () => `http://127.0.0.2:${allowed.port}/to-internal`);

  it('refuses what is not an image and what is not there', async () => {
    const html = await edit(`http://127.0.0.2:${allowed.port}/page.html`);
    expect(html.body.error).toMatchObject({ code: 'InvalidImage', param: PARAM });
    const missing = await edit(`http://127.0.0.2:${allowed.port}/not-found`);
    expect(missing.body.error).toMatchObject({ code: 'InvalidImage', param: PARAM });
    expect(missing.body.error.message).toContain('404');
  });
});
