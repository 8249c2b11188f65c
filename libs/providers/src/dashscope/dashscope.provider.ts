import type { ResolvedRoute } from '@gateway/catalog';
import {
  AppConfig,
  GatewayError,
  IMAGE_DOWNLOAD_PAUSE_MS,
  IMAGE_DOWNLOAD_TRIES,
  longestImageCallMs,
} from '@gateway/common';
import { fitSides, fitWithinBytes, ImageInputError } from '@gateway/imaging';
import { Injectable, OnModuleDestroy } from '@nestjs/common';
import { setTimeout as sleep } from 'node:timers/promises';
import { Agent } from 'undici';
import { wasSent } from '../http-failure';
import { ImageEditAnswer, ImageEditCall, ImageEditInput, ModelProvider, ProviderError } from '../provider.types';
import { downloadImage, MAX_RESULT_IMAGE_BYTES, postToUpstream, upstreamAgent } from '../upstream-http';
import { reportedImages } from '../reported-usage';
import {
  couldNotFetchInput,
  imageModelRules,
  inlineReason,
  INPUT_SIDES,
  MAX_INLINE_IMAGE_BYTES,
  upstreamSize,
} from './dashscope-image-rules';

/** Native (not compatible-mode) endpoint of the qwen-image-edit family; routes to it carry no base_path. */
const GENERATION_PATH = '/api/v1/services/aigc/multimodal-generation/generation';
/** The generation answer is a small JSON document pointing at the image; anything larger is not one. */
const MAX_ANSWER_BYTES = 1024 * 1024;
/** Clocks differ: the URL's signer, DashScope and the worker may each be a little off. */
const CLOCK_MARGIN_MS = 60_000;

type ContentItem = { image: string } | { text: string };

interface GenerationRequest {
  model: string;
  input: { messages: { role: 'user'; content: ContentItem[] }[] };
  parameters: {
    n: 1;
    negative_prompt?: string;
    size?: string;
    seed?: number;
    prompt_extend?: boolean;
    watermark?: boolean;
  };
}

interface GenerationAnswer {
  output?: { choices?: { finish_reason?: string; message?: { content?: { image?: string }[] } }[] };
  /** What it bills: https://www.alibabacloud.com/help/en/model-studio/qwen-image-edit-api (response parameters). */
  usage?: { width?: number; height?: number; image_count?: number };
  request_id?: string;
}

/**
 * Alibaba Cloud DashScope's native image-edit API: a synchronous call that answers a signed URL of the result.
 * Generation and download have their own deadlines: the generation is billed once it is made, so a download that
 * fails is tried again, and a generation that may have been made is never repeated on this route.
 */
@Injectable()
export class DashScopeProvider implements ModelProvider, OnModuleDestroy {
  readonly name = 'dashscope' as const;
  private readonly agent: Agent;
  private readonly generationMs: number;
  private readonly downloadMs: number;
  /**
   * How long a signed input URL must stay valid from the moment a call is built. Each call decides for itself, after
   * its route slot and its turn under max_rps (ProviderRouter.attempt), so the pacing of the job's other calls is
   * behind it: what the URL must outlast is this call (longestImageCallMs: DashScope fetches inputs at the start of the
   * generation, so this over-covers) plus a minute for clocks.
   */
  private readonly urlMustLastMs: number;

  constructor(config: AppConfig) {
    this.generationMs = config.UPSTREAM_IMAGE_GENERATION_TIMEOUT_MS;
    this.downloadMs = config.UPSTREAM_IMAGE_DOWNLOAD_TIMEOUT_MS;
    this.urlMustLastMs = longestImageCallMs(config) + CLOCK_MARGIN_MS;
    this.agent = upstreamAgent(Math.max(this.generationMs, this.downloadMs), 128);
  }

  async onModuleDestroy(): Promise<void> {
    await this.agent.close();
  }

  async prepareImages(images: readonly ImageEditInput[]): Promise<void> {
    const neededUntil = Date.now() + this.urlMustLastMs;
    const inline = images.filter((input) => inlineReason(input, neededUntil) !== undefined);
    // A failure is met again, and reported, by the call that sends the image.
    await Promise.all(inline.map((input) => inlineImage(input).catch(() => undefined)));
  }

  async editImage(route: ResolvedRoute, call: ImageEditCall): Promise<ImageEditAnswer> {
    const neededUntil = Date.now() + this.urlMustLastMs;
    const request = await generationRequest(route.model, call, (input) => !inlineReason(input, neededUntil));
    // The first request and an inline retry share one deadline, so longestImageCallMs still bounds the call.
    const signal = AbortSignal.timeout(this.generationMs);
    let answer: { body: GenerationAnswer; requestId?: string };
    try {
      answer = await this.generate(route, request.body, signal).catch(async (error: unknown) => {
        if (!request.sentUrls || !couldNotFetchInput(error)) throw error;
        // DashScope could not fetch a URL it was given and made nothing: the bytes the worker holds go instead, once.
        const inline = await generationRequest(route.model, call, () => false);
        return this.generate(route, inline.body, signal);
      });
    } catch (error) {
      // No answer (or no readable one) after the request went out: the image may exist upstream, billed, so this
      // route is not asked again.
      if (error instanceof ProviderError && mayHaveGenerated(error)) {
        throw new ProviderError(
          `${error.message}; the image may have been generated, so it is not requested again`,
          'spent',
          error.status,
          error,
        );
      }
      throw error;
    }
    const { requestId } = answer;
    const content = answer.body.output?.choices?.[0]?.message?.content ?? [];
    const imageUrl = content.find((item) => typeof item.image === 'string')?.image;
    if (!imageUrl) throw new ProviderError('upstream answered without an image', 'route', 200, { requestId });
    const image = await this.download(imageUrl, requestId);
    // DashScope returns no rewritten prompt, so the worker reports the prompt it sent. It draws its own mark when
    // asked (`parameters.watermark`).
    return { image, watermarked: true, requestId, ...reportedImages(answer.body.usage) };
  }

  private generate(
    route: ResolvedRoute,
    body: GenerationRequest,
    signal: AbortSignal,
  ): Promise<{ body: GenerationAnswer; requestId?: string }> {
    return postToUpstream<GenerationAnswer>(`${route.baseUrl}${GENERATION_PATH}`, JSON.stringify(body), {
      dispatcher: this.agent,
      signal,
      apiKey: route.apiKey,
      maxBytes: MAX_ANSWER_BYTES,
    });
  }

  /** The generated image, downloaded again on failure; it is billed already, so it is never generated again here. */
  private async download(url: string, requestId: string | undefined): Promise<Buffer> {
    let failure: ProviderError | undefined;
    for (let attempt = 1; attempt <= IMAGE_DOWNLOAD_TRIES; attempt++) {
      if (attempt > 1) await sleep(IMAGE_DOWNLOAD_PAUSE_MS);
      try {
        return await downloadImage(url, {
          dispatcher: this.agent,
          signal: AbortSignal.timeout(this.downloadMs),
          maxBytes: MAX_RESULT_IMAGE_BYTES,
        });
      } catch (error) {
        if (!(error instanceof ProviderError)) throw error;
        failure = error;
        if (!isTransient(error)) break;
      }
    }
    throw new ProviderError(
      `the generated image could not be downloaded: ${failure?.message}`,
      'spent',
      failure?.status,
      { requestId },
    );
  }
}

/**
 * A failure after which the upstream may have made the image: no answer after the request was sent; a success
 * status whose body could not be read; or a 502/504 without DashScope's `code`, which a proxy in front of the service
 * answers when its own deadline passes while the generation goes on. A status with a `code` is DashScope's own
 * refusal, made before generating.
 */
function mayHaveGenerated(error: ProviderError): boolean {
  if (error.status === undefined) return wasSent(error);
  if (error.code !== undefined) return false;
  return (error.status >= 200 && error.status < 300) || error.status === 502 || error.status === 504;
}

/** A download failure that another try may not meet: the network, or the file server's 408, 429 and 5xx. */
function isTransient(error: ProviderError): boolean {
  if (error.failure !== 'retryable') return false;
  if (error.status === undefined) return error.code !== undefined;
  return error.status === 408 || error.status === 429 || error.status >= 500;
}

/**
 * The request body, with only the parameters the upstream model takes (dashscope-image-rules.ts), and whether it
 * carries any URL. An input goes as the caller's URL when `asUrl` allows; every other one inline as a data URI,
 * scaled into INPUT_SIDES and re-encoded under MAX_INLINE_IMAGE_BYTES where it has to be.
 */
async function generationRequest(
  model: string,
  call: ImageEditCall,
  asUrl: (input: ImageEditInput) => boolean,
): Promise<{ body: GenerationRequest; sentUrls: boolean }> {
  const rules = imageModelRules(model);
  const urls = call.images.map((input) => (input.url && asUrl(input) ? input.url : undefined));
  const content: ContentItem[] = await Promise.all(
    call.images.map(async (input, index) => ({ image: urls[index] ?? (await inlineImage(input)) })),
  );
  content.push({ text: call.prompt });
  const body: GenerationRequest = {
    model,
    input: { messages: [{ role: 'user', content }] },
    parameters: {
      n: 1,
      ...(call.negativePrompt ? { negative_prompt: call.negativePrompt } : {}),
      ...(call.size && rules.size ? { size: upstreamSize(call.size) } : {}),
      ...(call.seed !== undefined ? { seed: call.seed } : {}),
      ...(call.promptExtend !== undefined && rules.promptExtend ? { prompt_extend: call.promptExtend } : {}),
      ...(call.watermark !== undefined ? { watermark: call.watermark } : {}),
    },
  };
  return { body, sentUrls: urls.some((url) => url !== undefined) };
}

/**
 * Each input's data URI, made once however many calls send it (an edit of n images makes n calls with the same
 * inputs): kept while the job holds the input's bytes.
 */
const inlined = new WeakMap<Buffer, Promise<string>>();

function inlineImage(input: ImageEditInput): Promise<string> {
  let uri = inlined.get(input.data);
  if (!uri) {
    uri = encodeInline(input);
    inlined.set(input.data, uri);
  }
  return uri;
}

async function encodeInline(input: ImageEditInput): Promise<string> {
  let fitted: { data: Buffer; mime: string };
  try {
    fitted = await fitWithinBytes(await fitSides(input, INPUT_SIDES), MAX_INLINE_IMAGE_BYTES);
  } catch (error) {
    // Not the upstream's fault and not the route's: the caller's image cannot be sent as it is.
    if (error instanceof ImageInputError) throw new GatewayError('InvalidImage', error.message);
    throw error;
  }
  return `data:${fitted.mime};base64,${fitted.data.toString('base64')}`;
}
