import type { ResolvedRoute } from '@gateway/catalog';
import { loadConfig } from '@gateway/common';
import sharp from 'sharp';
import { providerFailureOf, solidImage } from '../../../../test/helpers/provider-specs';
import { aboutOneMegapixel, DashScopeFake, startDashScopeFake } from '../../../../test/fakes/dashscope-fake';
import { ImageEditCall, ProviderError } from '../provider.types';
import { MAX_RESULT_IMAGE_BYTES } from '../upstream-http';
import { DashScopeProvider } from './dashscope.provider';

const API_KEY = 'sk-dashscope-spec-0123456789';

function providerWithTimeout(ms: number): DashScopeProvider {
  return new DashScopeProvider(loadConfig({ MASTER_KEY: 'a'.repeat(64), UPSTREAM_TIMEOUT_MS: ms }));
}

function routeTo(fake: DashScopeFake, apiKey = API_KEY): ResolvedRoute {
  const model = 'qwen-image-edit-plus-2025-12-15';
  return { provider: 'dashscope', upstream: 'dashscope', model, key: `dashscope:${model}`, baseUrl: fake.url, apiKey };
}

const solid = (width: number, height: number, format: 'png' | 'jpeg') =>
  solidImage(width, height, format, { r: 40, g: 120, b: 200 });

describe('DashScopeProvider.editImage', () => {
  let fake: DashScopeFake;
  let provider: DashScopeProvider;
  let landscape: Buffer;
  let square: Buffer;
  const edit = (call: Partial<ImageEditCall> = {}, route = routeTo(fake)) =>
    provider.editImage(route, {
      images: [{ data: landscape, mime: 'image/png', width: 600, height: 400 }],
      prompt: '把背景换成海边',
      variation: 0,
      ...call,
    });

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
      revisedPrompt: undefined,
      delayMs: undefined,
    });
  });
  afterAll(async () => {
    await provider.onModuleDestroy();
    await fake.close();
  });

  it('sends the native request shape and returns the downloaded image', async () => {
    const answer = await edit();

    const metadata = await sharp(answer.image).metadata();
    expect(metadata.format).toBe('png');
    expect([metadata.width, metadata.height]).toEqual(aboutOneMegapixel(600, 400));
    expect(answer.revisedPrompt).toBeUndefined();
    expect(fake.calls).toHaveLength(1);
    expect(fake.calls[0]).toMatchObject({
      model: 'qwen-image-edit-plus-2025-12-15',
      text: '把背景换成海边',
      imageCount: 1,
      images: [{ mime: 'image/png', width: 600, height: 400 }],
      parameters: { n: 1 },
      status: 200,
    });
    expect(fake.downloads).toHaveLength(1);
    expect(answer.image.equals(fake.fileAt(fake.calls[0].output!.url)!)).toBe(true);
  });

  it('sends every input in order with the optional parameters, size as W*H', async () => {
    const answer = await edit({
      images: [
        { data: landscape, mime: 'image/png', width: 600, height: 400 },
        { data: square, mime: 'image/jpeg', width: 300, height: 300 },
      ],
      prompt: '把图1的人放进图2',
      negativePrompt: 'blurry',
      size: { width: 1024, height: 768 },
      seed: 42,
      promptExtend: false,
      watermark: false,
    });

    const metadata = await sharp(answer.image).metadata();
    expect([metadata.width, metadata.height]).toEqual([1024, 768]);
    expect(fake.calls[0].images).toEqual([
      { mime: 'image/png', width: 600, height: 400 },
      { mime: 'image/jpeg', width: 300, height: 300 },
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

  it('gives the same image for the same seed and another for another seed', async () => {
    const [first, again, other] = await Promise.all([edit({ seed: 7 }), edit({ seed: 7 }), edit({ seed: 8 })]);
    expect(first.image.equals(again.image)).toBe(true);
    expect(first.image.equals(other.image)).toBe(false);
  });

  it('passes on a rewritten prompt when the upstream reports one', async () => {
    fake.options.revisedPrompt = (text) => `${text}, golden hour`;
    const answer = await edit({ promptExtend: true });
    expect(answer.revisedPrompt).toBe('把背景换成海边, golden hour');
  });

  it('reports a request the upstream judges invalid as the request’s failure', async () => {
    const error = await providerFailureOf(edit({ size: { width: 4096, height: 4096 } }));
    expect(error).toMatchObject({ failure: 'request', status: 400 });
    expect(error.message).toMatch(/^InvalidParameter: parameters.size/);
  });

  it('reports a content-moderation rejection as the request’s failure', async () => {
    fake.failNext({ status: 400, code: 'DataInspectionFailed' });
    const error = await providerFailureOf(edit());
    expect(error).toMatchObject({ failure: 'request', status: 400 });
    expect(error.message).toBe('DataInspectionFailed: Input data may contain inappropriate content.');
  });

  it('reports a refused key as the route’s failure without echoing the key', async () => {
    const error = await providerFailureOf(edit({}, routeTo(fake, 'sk-wrong-key-abcdef')));
    expect(error).toMatchObject({ failure: 'route', status: 401 });
    expect(error.message).not.toContain('sk-wrong');
  });

  it('reports an overdue account as the route’s failure although DashScope answers 400', async () => {
    fake.failNext({
      status: 400,
      code: 'Arrearage',
      message: 'Access denied, please make sure your account is in good standing.',
    });
    expect(await providerFailureOf(edit())).toMatchObject({ failure: 'route', status: 400 });
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

  it('reports a dropped connection as retryable', async () => {
    fake.failNext({ dropConnection: true });
    expect(await providerFailureOf(edit())).toMatchObject({ failure: 'retryable' });
  });

  it('reports an upstream slower than UPSTREAM_TIMEOUT_MS as a retryable timeout', async () => {
    const impatient = providerWithTimeout(200);
    fake.setDelay(1_000);
    try {
      const error = await providerFailureOf(
        impatient.editImage(routeTo(fake), {
          images: [{ data: landscape, mime: 'image/png', width: 600, height: 400 }],
          prompt: 'x',
          variation: 0,
        }),
      );
      expect(error).toMatchObject({ failure: 'retryable', message: 'upstream timed out' });
    } finally {
      await impatient.onModuleDestroy();
    }
  });

  it('refuses a result larger than the cap, announced by Content-Length', async () => {
    fake.options.fileBytes = MAX_RESULT_IMAGE_BYTES + 1;
    const error = await providerFailureOf(edit());
    expect(error).toMatchObject({ failure: 'route' });
    expect(error.message).toBe('upstream image is larger than 20 MB');
  });

  it('refuses a result larger than the cap while streaming it', async () => {
    Object.assign(fake.options, { fileBytes: MAX_RESULT_IMAGE_BYTES + 1, chunkedFiles: true });
    expect(await providerFailureOf(edit())).toMatchObject({
      failure: 'route',
      message: 'upstream image is larger than 20 MB',
    });
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
    expect(outcomes).toEqual(['ok', 'ok', 'request', 'ok']);
  });
});
