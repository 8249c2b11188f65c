import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { AddressInfo } from 'node:net';
import { DashScopeFake, GENERATION_PATH, startDashScopeFake } from '../fakes/dashscope-fake';
import { DASHSCOPE_ERROR_MESSAGES } from '../fakes/upstream-rules';
import { dataUri, editBody, noisyPng, solidPng } from '../helpers/images';
import { createApplication, postJson, RunningApi, startApi, startWorker, testEnv } from '../helpers/gateway';

const MODEL = 'x-image-edit-plus-2025-10-30';
const DASHSCOPE_KEY = 'sk-upstream-dashscope';

/**
 * How a caller’s image reaches DashScope (docs/contracts.md, "What an upstream is sent"): the caller’s URL only when
 * the service could fetch it as the worker did, otherwise the bytes the worker holds, every input scaled into the
 * 384–3072 pixels per side the service takes. The image host here is on loopback (127.0.0.2, opened to the
 * gateway by OUTBOUND_ALLOW_CIDRS): no honest setup makes the gateway see it as public, so a URL passed through is
 * covered by the adapter's spec (dashscope.provider.spec.ts) and the decision's (dashscope-image-rules.spec.ts).
 */
describe('image inputs as DashScope can take them', () => {
  let dashscope: DashScopeFake;
  let api: RunningApi;
  let worker: { close(): Promise<void> };
  let apiKey: string;
  let files: Server;
  let filesUrl: string;
  let photo: Buffer;

  /** The image host: /photo.png with a Content-Length, /chunked.png without, /moved.png redirecting to the first. */
  const serve = (request: IncomingMessage, response: ServerResponse) => {
    if (request.url === '/photo.png')
      return void response.writeHead(200, { 'content-type': 'image/png', 'content-length': photo.length }).end(photo);
    if (request.url === '/chunked.png') {
      response.writeHead(200, { 'content-type': 'image/png' });
      response.write(photo);
      return void response.end();
    }
    if (request.url === '/moved.png') return void response.writeHead(302, { location: '/photo.png' }).end();
    response.writeHead(404).end();
  };

  beforeAll(async () => {
    photo = await noisyPng(640, 480);
    files = createServer(serve);
    await new Promise<void>((resolve) => files.listen(0, '127.0.0.2', resolve));
    filesUrl = `http://127.0.0.2:${(files.address() as AddressInfo).port}`;
    dashscope = await startDashScopeFake({ apiKey: DASHSCOPE_KEY, delayMs: 0 });
    const env = testEnv({
      UPSTREAM_DASHSCOPE_BASE_URL: dashscope.url,
      UPSTREAM_DASHSCOPE_API_KEY: DASHSCOPE_KEY,
      OUTBOUND_ALLOW_CIDRS: '127.0.0.2/32',
    });
    [api, worker] = await Promise.all([startApi(env), startWorker(env)]);
    ({ apiKey } = await createApplication(api));
  });

  afterAll(async () => {
    await Promise.all([api?.close(), worker?.close()]);
    await Promise.all([dashscope?.close(), new Promise((resolve) => files?.close(resolve))]);
  });

  beforeEach(() => {
    dashscope.reset();
    dashscope.options.publicHosts = undefined;
  });

  const edit = (images: string[]) =>
    postJson(`${api.url}/v1/images/edits`, editBody(MODEL, images, '把背景换成海边', { prompt_extend: false }), apiKey);

  describe('a URL the worker could read but DashScope could not goes as bytes, and the edit succeeds', () => {
    it.each([
      ['a URL that redirects', '/moved.png'],
      ['a URL answered without a Content-Length', '/chunked.png'],
      ['a URL on 127.0.0.2, opened by OUTBOUND_ALLOW_CIDRS', '/photo.png'],
    ])('%s', async (_, path) => {
      const response = await edit([`${filesUrl}${path}`]);
      expect(response.status).toBe(200);
      // One call, which the upstream accepted: no refusal, no second try.
      expect(dashscope.calls).toHaveLength(1);
      expect(dashscope.calls[0]).toMatchObject({ status: 200 });
      expect(dashscope.calls[0].images).toEqual([
        expect.objectContaining({ source: 'data', mime: 'image/png', width: 640, height: 480 }),
      ]);
    });
  });

  it('scales a 4000×3000 input down to 3072×2304 and a 200×200 one up to 384×384', async () => {
    const [large, small] = await Promise.all([solidPng(4000, 3000, [200, 80, 40]), solidPng(200, 200, [0, 90, 160])]);
    const response = await edit([dataUri(large), dataUri(small)]);
    expect(response.status).toBe(200);
    expect(dashscope.calls).toHaveLength(1);
    expect(dashscope.calls[0].images).toMatchObject([
      { source: 'data', width: 3072, height: 2304 },
      { source: 'data', width: 384, height: 384 },
    ]);
    expect(dashscope.calls[0].status).toBe(200);
  });

  it('scales a URL input outside 384–3072 and sends it as bytes', async () => {
    photo = await noisyPng(300, 150);
    try {
      const response = await edit([`${filesUrl}/photo.png`]);
      expect(response.status).toBe(200);
      expect(dashscope.calls[0].images).toEqual([expect.objectContaining({ source: 'data', width: 768, height: 384 })]);
    } finally {
      photo = await noisyPng(640, 480);
    }
  });

  /** The fake fetches URL inputs as the service does, from the internet. */
  describe('the DashScope fake', () => {
    const post = (image: string) =>
      fetch(`${dashscope.url}${GENERATION_PATH}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${DASHSCOPE_KEY}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          model: 'qwen-image-edit-plus',
          input: { messages: [{ role: 'user', content: [{ image }, { text: 'edit' }] }] },
        }),
      }).then(async (response) => ({ status: response.status, body: await response.json() }));

    it('refuses a URL on a loopback or private address with InvalidURL', async () => {
      expect(await post(`${filesUrl}/photo.png`)).toMatchObject({
        status: 400,
        body: { code: 'InvalidURL', message: 'Invalid URL provided in your request.' },
      });
      expect((await post('http://10.0.0.1/photo.png')).body.code).toBe('InvalidURL');
    });

    it('follows no redirect, wants a Content-Length, and fetches a host a test lets it treat as public', async () => {
      dashscope.options.publicHosts = ['127.0.0.2'];
      const moved = await post(`${filesUrl}/moved.png`);
      expect(moved).toMatchObject({ status: 400, body: { code: 'BadRequest.InputDownloadFailed' } });
      expect(moved.body.message).toMatch(/^Failed to download the input file: the URL answered HTTP 302/);
      expect(await post(`${filesUrl}/chunked.png`)).toMatchObject({
        status: 400,
        body: { code: 'InternalError.Algo', message: DASHSCOPE_ERROR_MESSAGES.missingContentLength },
      });
      expect((await post(`${filesUrl}/photo.png`)).status).toBe(200);
      expect(dashscope.calls.at(-1)?.images).toEqual([
        expect.objectContaining({ source: 'url', url: `${filesUrl}/photo.png`, width: 640, height: 480 }),
      ]);
    });
  });
});
