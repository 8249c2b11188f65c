import type { ResolvedRoute } from '@gateway/catalog';
import { loadConfig } from '@gateway/common';
import { randomBytes } from 'node:crypto';
import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { AddressInfo } from 'node:net';
import sharp from 'sharp';
import { providerFailureOf, solidImage } from '../../../../test/helpers/provider-specs';
import { aboutOneMegapixel, DashScopeFake, startDashScopeFake } from '../../../../test/fakes/dashscope-fake';
import { ImageEditCall, ImageEditInput, ProviderError } from '../provider.types';
import { MAX_RESULT_IMAGE_BYTES } from '../upstream-http';
import { MAX_INLINE_IMAGE_BYTES, MAX_UPSTREAM_IMAGE_BYTES } from './dashscope-image-rules';
import { DashScopeProvider } from './dashscope.provider';

const API_KEY = 'sk-dashscope-spec-0123456789';

/** A provider with these generation and download deadlines; UPSTREAM_TIMEOUT_MS stays at its default (120 s). */
function providerWithTimeout(generationMs: number, downloadMs = 5_000): DashScopeProvider {
  return new DashScopeProvider(
    loadConfig({
      MASTER_KEY: 'a'.repeat(64),
      UPSTREAM_IMAGE_GENERATION_TIMEOUT_MS: generationMs,
      UPSTREAM_IMAGE_DOWNLOAD_TIMEOUT_MS: downloadMs,
    }),
  );
}

function routeTo(baseUrl: string, model = 'qwen-image-edit-plus-2025-12-15', apiKey = API_KEY): ResolvedRoute {
  return { provider: 'dashscope', upstream: 'dashscope', model, key: `dashscope:${model}`, baseUrl, apiKey };
}

const solid = (width: number, height: number, format: 'png' | 'jpeg') =>
  solidImage(width, height, format, { r: 40, g: 120, b: 200 });

/** A plain HTTP server on 127.0.0.1 answering with `handle`: an image host, or an upstream the fake cannot play. */
async function startServer(handle: (req: IncomingMessage, res: ServerResponse) => void): Promise<{
  url: string;
  close: () => Promise<void>;
}> {
  const server: Server = createServer((req, res) => {
    req.resume();
    req.on('end', () => handle(req, res));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

/** A port nothing listens on, so a connection to it is refused before any request goes out. */
async function closedPort(): Promise<number> {
  const { url, close } = await startServer(() => undefined);
  await close();
  return Number(new URL(url).port);
}

describe('DashScopeProvider.editImage', () => {
  let fake: DashScopeFake;
  let provider: DashScopeProvider;
  let landscape: Buffer;
  let square: Buffer;
  const landscapeInput = (): ImageEditInput => ({
    data: landscape,
    mime: 'image/png',
    width: 600,
    height: 400,
    sourceBytes: landscape.length,
  });
  const squareInput = (): ImageEditInput => ({
    data: square,
    mime: 'image/jpeg',
    width: 300,
    height: 300,
    sourceBytes: square.length,
  });
  const edit = (call: Partial<ImageEditCall> = {}, route = routeTo(fake.url), using = provider) =>
    using.editImage(route, { images: [landscapeInput()], prompt: '把背景换成海边', variation: 0, ...call });
  const downloadOutcomes = () => fake.downloadAttempts.map((attempt) => attempt.outcome);

  beforeAll(async () => {
    fake = await startDashScopeFake({ apiKey: API_KEY });
    provider = providerWithTimeout(5_000);
    [landscape, square] = await Promise.all([solid(600, 400, 'png'), solid(300, 300, 'jpeg')]);
  });
  afterEach(() => {
    fake.reset();
    Object.assign(fake.options, {
      fileBytes: undefined,
      chunkedFiles: undefined,
      delayMs: undefined,
      publicHosts: undefined,
    });
  });
  afterAll(async () => {
    await provider.onModuleDestroy();
    await fake.close();
  });

  it('sends the native request shape and returns the downloaded image with the upstream’s request id', async () => {
    const answer = await edit();

    const metadata = await sharp(answer.image).metadata();
    expect(metadata.format).toBe('png');
    expect([metadata.width, metadata.height]).toEqual(aboutOneMegapixel(600, 400));
    // DashScope reports no rewritten prompt: the worker reports the prompt it sent.
    expect(answer).not.toHaveProperty('revisedPrompt');
    expect(answer.watermarked).toBe(true);
    expect(fake.calls).toHaveLength(1);
    expect(answer.requestId).toBe(fake.calls[0].requestId);
    expect(fake.calls[0]).toMatchObject({
      model: 'qwen-image-edit-plus-2025-12-15',
      text: '把背景换成海边',
      contentType: 'application/json',
      imageCount: 1,
      images: [{ source: 'data', mime: 'image/png', bytes: landscape.length, width: 600, height: 400 }],
      parameters: { n: 1 },
      status: 200,
    });
    expect(fake.downloads).toHaveLength(1);
    expect(answer.image.equals(fake.fileAt(fake.calls[0].output!.url)!)).toBe(true);
  });

  it('sends every input in order with the optional parameters, size as W*H', async () => {
    const answer = await edit({
      images: [landscapeInput(), squareInput()],
      prompt: '把图1的人放进图2',
      negativePrompt: 'blurry',
      size: { width: 1024, height: 768 },
      seed: 42,
      promptExtend: false,
      watermark: false,
    });

    const metadata = await sharp(answer.image).metadata();
    expect([metadata.width, metadata.height]).toEqual([1024, 768]);
    expect(fake.calls[0].images).toMatchObject([
      { source: 'data', mime: 'image/png', width: 600, height: 400 },
      // Scaled up into the 384–3072 pixels an input's sides must be within.
      { source: 'data', mime: 'image/jpeg', width: 384, height: 384 },
    ]);
    expect(fake.calls[0].parameters).toEqual({
      n: 1,
      negative_prompt: 'blurry',
      size: '1024*768',
      seed: 42,
      prompt_extend: false,
      watermark: false,
    });
  });

  it('brings a requested size into 512–2048 in steps of 16', async () => {
    await edit({ size: { width: 1000, height: 300 } });
    expect(fake.calls[0].parameters.size).toBe('1008*512');
  });

  it('sends the base model qwen-image-edit neither size nor prompt_extend, which it does not take', async () => {
    const answer = await edit(
      { negativePrompt: 'blurry', size: { width: 1024, height: 768 }, seed: 42, promptExtend: true, watermark: false },
      routeTo(fake.url, 'qwen-image-edit'),
    );

    expect(fake.calls[0].model).toBe('qwen-image-edit');
    expect(fake.calls[0].parameters).toEqual({ n: 1, negative_prompt: 'blurry', seed: 42, watermark: false });
    // The model's own resolution, from the input, not the size asked for.
    const metadata = await sharp(answer.image).metadata();
    expect([metadata.width, metadata.height]).toEqual(aboutOneMegapixel(600, 400));
  });

  it('gives the same image for the same seed and another for another seed', async () => {
    const [first, again, other] = await Promise.all([edit({ seed: 7 }), edit({ seed: 7 }), edit({ seed: 8 })]);
    expect(first.image.equals(again.image)).toBe(true);
    expect(first.image.equals(other.image)).toBe(false);
  });

  describe('inputs given as URLs', () => {
    let host: Awaited<ReturnType<typeof startServer>>;
    /** The worker fetched it straight from a public address, and the answer had a Content-Length. */
    const REACHABLE = { direct: true, publicHost: true, declaredLength: true };
    const urlInput = (path: string, reach = REACHABLE): ImageEditInput => ({
      ...landscapeInput(),
      url: `${host.url}${path}`,
      reach,
    });

    beforeAll(async () => {
      host = await startServer((req, res) => {
        res.writeHead(200, { 'content-type': 'image/png', 'content-length': landscape.length });
        res.end(landscape);
      });
    });
    beforeEach(() => {
      // The image host stands for one on the internet, which DashScope can reach.
      fake.options.publicHosts = ['127.0.0.1'];
    });
    afterAll(() => host.close());

    it('sends an input the worker fetched directly from a public host as that URL, the others inline', async () => {
      const answer = await edit({ images: [urlInput('/cat.png'), squareInput()] });

      expect(fake.calls[0].images).toEqual([
        {
          source: 'url',
          url: `${host.url}/cat.png`,
          mime: 'image/png',
          bytes: landscape.length,
          width: 600,
          height: 400,
        },
        { source: 'data', mime: 'image/jpeg', bytes: expect.any(Number), width: 384, height: 384 },
      ]);
      expect(answer.image.equals(fake.fileAt(fake.calls[0].output!.url)!)).toBe(true);
    });

    it.each([
      ['the worker followed a redirect', { ...REACHABLE, direct: false }],
      ['the host is not public, or the allow-list opened it', { ...REACHABLE, publicHost: false }],
      ['the answer had no Content-Length', { ...REACHABLE, declaredLength: false }],
    ])('sends the bytes it holds when %s', async (_, reach) => {
      await edit({ images: [urlInput('/cat.png', reach)] });
      expect(fake.calls[0].images).toEqual([
        { source: 'data', mime: 'image/png', bytes: landscape.length, width: 600, height: 400 },
      ]);
    });

    it('sends the bytes of a signed URL that expires before the call could end, the URL of one that lasts', async () => {
      // OSS's form: Expires=<epoch seconds>. The call may take over 5 s here (its generation deadline) plus downloads.
      const signed = (path: string, seconds: number) =>
        `${path}?Expires=${Math.floor(Date.now() / 1000) + seconds}&Signature=s`;
      await edit({ images: [urlInput(signed('/soon.png', 30))] });
      expect(fake.calls[0].images[0].source).toBe('data');
      fake.reset();
      const lasting = signed('/later.png', 3600);
      await edit({ images: [urlInput(lasting)] });
      expect(fake.calls[0].images[0]).toMatchObject({ source: 'url', url: `${host.url}${lasting}` });
    });

    it('sends an input inline when the caller’s original was over the limit, though its URL was given', async () => {
      await edit({ images: [{ ...urlInput('/big.bmp'), sourceBytes: MAX_UPSTREAM_IMAGE_BYTES + 1 }] });
      expect(fake.calls[0].images).toEqual([
        { source: 'data', mime: 'image/png', bytes: landscape.length, width: 600, height: 400 },
      ]);
    });

    it('asks again at once with every image inline when DashScope cannot fetch a URL it was given', async () => {
      // DashScope cannot reach this host after all: it answers InvalidURL and makes nothing.
      fake.options.publicHosts = [];
      const answer = await edit({ images: [urlInput('/cat.png'), squareInput()] });

      expect(fake.calls.map((call) => [call.status, call.code])).toEqual([
        [400, 'InvalidURL'],
        [200, undefined],
      ]);
      expect(fake.generations).toBe(1);
      expect(fake.calls[1].images.map((image) => image.source)).toEqual(['data', 'data']);
      expect(answer.requestId).toBe(fake.calls[1].requestId);
    });

    it('asks again inline when the URL’s host answers DashScope without a Content-Length', async () => {
      const chunked = await startServer((req, res) => {
        res.writeHead(200, { 'content-type': 'image/png' });
        res.write(landscape);
        res.end();
      });
      try {
        await edit({ images: [{ ...landscapeInput(), url: `${chunked.url}/cat.png`, reach: REACHABLE }] });
        expect(fake.calls.map((call) => [call.status, call.code])).toEqual([
          [400, 'InternalError.Algo'],
          [200, undefined],
        ]);
      } finally {
        await chunked.close();
      }
    });

    it('does not ask again when a request that sent no URL meets InvalidURL', async () => {
      fake.failNext({ code: 'InvalidURL' });
      const error = await providerFailureOf(edit());
      expect(error).toMatchObject({ failure: 'request', status: 400, code: 'InvalidURL' });
      expect(fake.calls).toHaveLength(1);
    });

    it('re-encodes an inline input larger than 7.5 MB to fit under it, so its base64 stays under 10 MB', async () => {
      // Noise hardly compresses: stored without compression, this PNG is over 10 MB.
      const [width, height] = [2000, 1900];
      const noise = await sharp(randomBytes(width * height * 3), { raw: { width, height, channels: 3 } })
        .png({ compressionLevel: 0 })
        .toBuffer();
      expect(noise.length).toBeGreaterThan(MAX_UPSTREAM_IMAGE_BYTES);

      await edit({
        images: [
          { data: noise, mime: 'image/png', width, height, url: `${host.url}/noise.png`, sourceBytes: noise.length },
        ],
      });

      expect(fake.calls[0].status).toBe(200);
      expect(fake.calls[0].images).toHaveLength(1);
      const [sent] = fake.calls[0].images;
      expect(sent).toMatchObject({ source: 'data', mime: 'image/jpeg' });
      expect(sent.bytes).toBeLessThanOrEqual(MAX_INLINE_IMAGE_BYTES);
      const dataUriLength = 'data:image/jpeg;base64,'.length + Math.ceil(sent.bytes! / 3) * 4;
      expect(dataUriLength).toBeLessThan(MAX_UPSTREAM_IMAGE_BYTES);
    });

    it('scales a 4000×3000 input down to 3072×2304 and a 200×200 one up to 384×384', async () => {
      const [large, small] = await Promise.all([solid(4000, 3000, 'jpeg'), solid(200, 200, 'png')]);
      await edit({
        images: [
          { data: large, mime: 'image/jpeg', width: 4000, height: 3000, sourceBytes: large.length },
          { data: small, mime: 'image/png', width: 200, height: 200, sourceBytes: small.length },
        ],
      });
      expect(fake.calls[0].status).toBe(200);
      expect(fake.calls[0].images).toMatchObject([
        { source: 'data', width: 3072, height: 2304 },
        { source: 'data', width: 384, height: 384 },
      ]);
    });
  });

  it('reports a request the upstream judges invalid as the request’s failure', async () => {
    const error = await providerFailureOf(edit({ seed: -1 }));
    expect(error).toMatchObject({ failure: 'request', status: 400, code: 'InvalidParameter' });
    expect(error.message).toMatch(/^InvalidParameter: parameters.seed/);
    expect(error.requestId).toBe(fake.calls[0].requestId);
  });

  it('reports a content-moderation rejection as a content failure', async () => {
    fake.failNext({ status: 400, code: 'DataInspectionFailed' });
    const error = await providerFailureOf(edit());
    expect(error).toMatchObject({ failure: 'content', status: 400, code: 'DataInspectionFailed' });
    expect(error.message).toMatch(/^DataInspectionFailed: /);
    expect(error.requestId).toBe(fake.calls[0].requestId);
  });

  it.each([
    ['DataInspectionFailed', 'content'],
    ['Arrearage', 'route'],
    ['InvalidParameter', 'route'],
    ['Throttling.RateQuota', 'retryable'],
  ])('fails a 200 answer that carries the code %s, as %s', async (code, failure) => {
    fake.failNext({ status: 200, code, message: 'refused' });
    const error = await providerFailureOf(edit());
    expect(error).toMatchObject({ failure, status: 200, code, message: `${code}: refused` });
    expect(error.requestId).toBe(fake.calls[0].requestId);
    expect(fake.downloadAttempts).toHaveLength(0);
  });

  it('reports a refused key as the route’s failure without echoing the key', async () => {
    const error = await providerFailureOf(edit({}, routeTo(fake.url, undefined, 'sk-wrong-key-abcdef')));
    expect(error).toMatchObject({ failure: 'route', status: 401 });
    expect(error.message).not.toContain('sk-wrong');
  });

  it('reports an overdue account as the route’s failure although DashScope answers 400', async () => {
    fake.failNext({ status: 400, code: 'Arrearage' });
    expect(await providerFailureOf(edit())).toMatchObject({ failure: 'route', status: 400, code: 'Arrearage' });
  });

  it('reports throttling as retryable with the Retry-After it was given', async () => {
    fake.failNext({ status: 429, retryAfter: 3 });
    const error = await providerFailureOf(edit());
    expect(error).toMatchObject({ failure: 'retryable', status: 429, retryAfter: 3 });
    expect(error.message).toMatch(/^Throttling.RateQuota/);
  });

  it('reports a server error as retryable', async () => {
    fake.failNext({ status: 500 });
    expect(await providerFailureOf(edit())).toMatchObject({ failure: 'retryable', status: 500 });
  });

  it('reports a refused connection, when nothing was sent, as retryable', async () => {
    const error = await providerFailureOf(edit({}, routeTo(`http://127.0.0.1:${await closedPort()}`)));
    expect(error).toMatchObject({ failure: 'retryable', code: 'ECONNREFUSED' });
    expect(error.status).toBeUndefined();
  });

  it('reports a connection dropped after the request was sent as spent', async () => {
    fake.failNext({ dropConnection: true });
    const error = await providerFailureOf(edit());
    expect(error).toMatchObject({ failure: 'spent' });
    expect(error.status).toBeUndefined();
    expect(error.message).toMatch(/the image may have been generated, so it is not requested again$/);
    expect(fake.calls).toHaveLength(1);
  });

  it('reports a generation slower than UPSTREAM_IMAGE_GENERATION_TIMEOUT_MS as spent, asking only once', async () => {
    const impatient = providerWithTimeout(1_000);
    fake.options.delayMs = 0;
    fake.failNext({ hangAfterGeneration: true });
    try {
      const started = Date.now();
      const error = await providerFailureOf(edit({}, routeTo(fake.url), impatient));
      expect(Date.now() - started).toBeLessThan(3_000);
      expect(error).toMatchObject({ failure: 'spent' });
      expect(error.status).toBeUndefined();
      expect(error.message).toMatch(/^upstream timed out; the image may have been generated/);
      // The upstream made (and would bill) the image; the provider did not ask for another.
      expect(fake.generations).toBe(1);
      expect(fake.calls).toHaveLength(1);
      expect(fake.downloadAttempts).toHaveLength(0);
    } finally {
      await impatient.onModuleDestroy();
    }
  });

  it.each([
    ['answers 500', { status: 500 }, 'failed'],
    ['never answers', { hang: true }, 'hung'],
  ])(
    'downloads the result again, without a second generation, when the first download %s',
    async (_, failure, outcome) => {
      const quick = providerWithTimeout(5_000, 300);
      fake.failDownloads(failure);
      try {
        const answer = await edit({ seed: 5 }, routeTo(fake.url), quick);
        expect(downloadOutcomes()).toEqual([outcome, 'served']);
        expect(fake.calls).toHaveLength(1);
        expect(fake.generations).toBe(1);
        expect(answer.image.equals(fake.fileAt(fake.calls[0].output!.url)!)).toBe(true);
        expect(answer.requestId).toBe(fake.calls[0].requestId);
      } finally {
        await quick.onModuleDestroy();
      }
    },
  );

  it('gives up on a result after 3 failed downloads as spent, with the request id, never generating again', async () => {
    fake.failDownloads({ status: 503, times: 3 });
    const error = await providerFailureOf(edit());
    expect(error).toMatchObject({ failure: 'spent', status: 503, requestId: fake.calls[0].requestId });
    expect(error.message).toMatch(
      /^the generated image could not be downloaded: image download from 127\.0\.0\.1:\d+ answered HTTP 503$/,
    );
    expect(downloadOutcomes()).toEqual(['failed', 'failed', 'failed']);
    expect(fake.calls).toHaveLength(1);
  });

  it('does not download again what another try would not change (a 404)', async () => {
    fake.failDownloads({ status: 404, times: 3 });
    const error = await providerFailureOf(edit());
    expect(error).toMatchObject({ failure: 'spent', status: 404, requestId: fake.calls[0].requestId });
    expect(downloadOutcomes()).toEqual(['failed']);
    expect(fake.calls).toHaveLength(1);
  });

  it('refuses a result larger than the cap, announced by Content-Length, as spent', async () => {
    fake.options.fileBytes = MAX_RESULT_IMAGE_BYTES + 1;
    const error = await providerFailureOf(edit());
    expect(error).toMatchObject({ failure: 'spent', requestId: fake.calls[0].requestId });
    expect(error.message).toMatch(/: upstream image is larger than 20 MB$/);
    expect(fake.calls).toHaveLength(1);
  });

  it('refuses a result larger than the cap while streaming it, as spent', async () => {
    Object.assign(fake.options, { fileBytes: MAX_RESULT_IMAGE_BYTES + 1, chunkedFiles: true });
    const error = await providerFailureOf(edit());
    expect(error).toMatchObject({ failure: 'spent' });
    expect(error.message).toMatch(/: upstream image is larger than 20 MB$/);
    expect(fake.calls).toHaveLength(1);
  });

  it('reports an answer without an image as the route’s failure, with its request id', async () => {
    const upstream = await startServer((req, res) =>
      sendJson(res, 200, {
        output: { choices: [{ finish_reason: 'stop', message: { role: 'assistant', content: [] } }] },
        usage: { width: 0, height: 0, image_count: 0 },
        request_id: 'req-without-image',
      }),
    );
    try {
      const error = await providerFailureOf(edit({}, routeTo(upstream.url)));
      expect(error).toMatchObject({ failure: 'route', status: 200, requestId: 'req-without-image' });
    } finally {
      await upstream.close();
    }
  });

  it('lets one of several calls fail on its own (image 3 of 4)', async () => {
    fake.failCall(3, { status: 400, code: 'DataInspectionFailed' });
    const outcomes = [];
    for (let i = 0; i < 4; i++)
      outcomes.push(
        await edit({ seed: i }).then(
          () => 'ok',
          (error: ProviderError) => error.failure,
        ),
      );
    expect(outcomes).toEqual(['ok', 'ok', 'content', 'ok']);
  });
});
