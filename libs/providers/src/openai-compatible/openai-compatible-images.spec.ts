import type { ResolvedRoute } from '@gateway/catalog';
import { loadConfig } from '@gateway/common';
import sharp from 'sharp';
import { providerFailureOf, solidImage } from '../../../../test/helpers/provider-specs';
import { OpenAiFake } from '../../../../test/fakes/openai-fake';
import { ImageEditCall } from '../provider.types';
import { MAX_RESULT_IMAGE_BYTES } from '../upstream-http';
import { OpenAiCompatibleProvider } from './openai-compatible.provider';

const API_KEY = 'sk-openai-spec-0123456789';

function routeTo(fake: OpenAiFake, model = 'dall-e-2', apiKey = API_KEY): ResolvedRoute {
  return {
    provider: 'openai-compatible',
    upstream: 'openai',
    model,
    key: `openai:${model}`,
    baseUrl: fake.baseUrl,
    apiKey,
  };
}

const solid = (width: number, height: number, format: 'png' | 'jpeg') =>
  solidImage(width, height, format, { r: 200, g: 80, b: 40 });

describe('OpenAiCompatibleProvider.editImage', () => {
  const fake = new OpenAiFake({ apiKey: API_KEY });
  const urlFake = new OpenAiFake({ apiKey: API_KEY, imagesAsUrl: true });
  let provider: OpenAiCompatibleProvider;
  let png: Buffer;
  let jpeg: Buffer;
  const edit = (call: Partial<ImageEditCall> = {}, route = routeTo(fake)) =>
    provider.editImage(route, {
      images: [{ data: png, mime: 'image/png', width: 640, height: 480, sourceBytes: png.length }],
      prompt: 'make it night',
      variation: 0,
      ...call,
    });

  beforeAll(async () => {
    await Promise.all([fake.start(), urlFake.start()]);
    provider = new OpenAiCompatibleProvider(loadConfig({ MASTER_KEY: 'a'.repeat(64), UPSTREAM_TIMEOUT_MS: 5_000 }));
    [png, jpeg] = await Promise.all([solid(640, 480, 'png'), solid(256, 256, 'jpeg')]);
  });
  afterEach(() => [fake, urlFake].forEach((each) => each.reset()));
  afterAll(async () => {
    await provider.onModuleDestroy();
    await Promise.all([fake.stop(), urlFake.stop()]);
  });

  it('posts one image as the `image` part with the edit fields and returns the decoded answer', async () => {
    const answer = await edit({ size: { width: 1024, height: 768 } });

    const metadata = await sharp(answer.image).metadata();
    expect([metadata.format, metadata.width, metadata.height]).toEqual(['png', 1024, 768]);
    expect(answer.revisedPrompt).toBe('revised: make it night');
    expect(fake.calls).toHaveLength(1);
    expect(fake.calls[0].path).toBe('/v1/images/edits');
    expect(fake.calls[0].body).toEqual({
      model: 'dall-e-2',
      prompt: 'make it night',
      n: '1',
      size: '1024x768',
      response_format: 'b64_json',
      images: [
        { field: 'image', filename: 'image-1.png', mime: 'image/png', bytes: png.length, width: 640, height: 480 },
      ],
    });
  });

  it('posts several images as `image[]` parts in request order', async () => {
    const answer = await edit({
      images: [
        { data: png, mime: 'image/png', width: 640, height: 480, sourceBytes: png.length },
        { data: jpeg, mime: 'image/jpeg', width: 256, height: 256, sourceBytes: jpeg.length },
      ],
    });

    expect((await sharp(answer.image).metadata()).width).toBe(1024);
    expect(fake.calls[0].body.size).toBeUndefined();
    expect(fake.calls[0].body.images).toEqual([
      { field: 'image[]', filename: 'image-1.png', mime: 'image/png', bytes: png.length, width: 640, height: 480 },
      { field: 'image[]', filename: 'image-2.jpg', mime: 'image/jpeg', bytes: jpeg.length, width: 256, height: 256 },
    ]);
  });

  it('leaves response_format out for gpt-image models, which reject it', async () => {
    await edit({}, routeTo(fake, 'gpt-image-1'));
    expect(fake.calls[0].body.model).toBe('gpt-image-1');
    expect(fake.calls[0].body).not.toHaveProperty('response_format');
  });

  it('downloads the image when the upstream answers a URL', async () => {
    const answer = await edit({ size: { width: 512, height: 512 } }, routeTo(urlFake));
    expect((await sharp(answer.image).metadata()).width).toBe(512);
  });

  it('reports an input the upstream cannot read as the request’s failure', async () => {
    const error = await providerFailureOf(
      edit({
        images: [{ data: Buffer.from('not an image'), mime: 'image/png', width: 64, height: 64, sourceBytes: 12 }],
      }),
    );
    expect(error).toMatchObject({ failure: 'request', status: 400 });
    expect(error.message).toMatch(/Invalid image file/);
  });

  it('reports a refused key as the route’s failure without echoing it', async () => {
    fake.failNext({
      times: 1,
      status: 401,
      body: { error: { message: 'Incorrect API key provided: sk-open***6789.', type: 'invalid_request_error' } },
    });
    const error = await providerFailureOf(edit());
    expect(error).toMatchObject({ failure: 'route', status: 401 });
    expect(error.message).toBe('Incorrect API key provided: [redacted key]');
  });

  it('reports rate limiting as retryable with its Retry-After', async () => {
    fake.failNext({ times: 1, status: 429 });
    expect(await providerFailureOf(edit())).toMatchObject({ failure: 'retryable', status: 429, retryAfter: 0 });
  });

  it('reports a server error and a dropped connection as retryable', async () => {
    fake.failNext({ times: 1, status: 500 });
    fake.failNext({ times: 1, dropConnection: true });
    expect(await providerFailureOf(edit())).toMatchObject({ failure: 'retryable', status: 500 });
    expect(await providerFailureOf(edit())).toMatchObject({ failure: 'retryable' });
  });

  it('refuses an inline image larger than the cap', async () => {
    const huge = 'A'.repeat(Math.ceil(((MAX_RESULT_IMAGE_BYTES + 1024) * 4) / 3));
    fake.failNext({ times: 1, status: 200, body: { created: 0, data: [{ b64_json: huge }] } });
    expect(await providerFailureOf(edit())).toMatchObject({
      failure: 'route',
      message: 'upstream image is larger than 20 MB',
    });
  });
});
