import type { ResolvedRoute } from '@gateway/catalog';
import { AppConfig } from '@gateway/common';
import { Injectable, OnModuleDestroy } from '@nestjs/common';
import { Agent } from 'undici';
import { ImageEditAnswer, ImageEditCall, ModelProvider, ProviderError } from '../provider.types';
import { downloadImage, MAX_RESULT_IMAGE_BYTES, postToUpstream, upstreamAgent } from '../upstream-http';

/** Native (not compatible-mode) endpoint of the qwen-image-edit family; routes to it carry no base_path. */
const GENERATION_PATH = '/api/v1/services/aigc/multimodal-generation/generation';
/** The generation answer is a small JSON document pointing at the image; anything larger is not one. */
const MAX_ANSWER_BYTES = 1024 * 1024;

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
  output?: { choices?: { finish_reason?: string; message?: { content?: { image?: string; text?: string }[] } }[] };
  usage?: { width?: number; height?: number; image_count?: number };
  request_id?: string;
}

/** Alibaba Cloud DashScope's native image-edit API: a synchronous call that answers a signed URL of the result. */
@Injectable()
export class DashScopeProvider implements ModelProvider, OnModuleDestroy {
  readonly name = 'dashscope' as const;
  private readonly agent: Agent;
  private readonly timeoutMs: number;

  constructor(config: AppConfig) {
    this.timeoutMs = config.UPSTREAM_TIMEOUT_MS;
    this.agent = upstreamAgent(config.UPSTREAM_TIMEOUT_MS, 128);
  }

  async onModuleDestroy(): Promise<void> {
    await this.agent.close();
  }

  async editImage(route: ResolvedRoute, call: ImageEditCall): Promise<ImageEditAnswer> {
    // One deadline for generation and download, so a route slot's lease always outlives the call.
    const signal = AbortSignal.timeout(this.timeoutMs);
    const answer = await postToUpstream<GenerationAnswer>(
      `${route.baseUrl}${GENERATION_PATH}`,
      JSON.stringify(generationRequest(route.model, call)),
      {
        dispatcher: this.agent,
        signal,
        apiKey: route.apiKey,
        maxBytes: MAX_ANSWER_BYTES,
      },
    );
    const content = answer.output?.choices?.[0]?.message?.content ?? [];
    const imageUrl = content.find((item) => typeof item.image === 'string')?.image;
    if (!imageUrl)
      throw new ProviderError(`upstream returned no image (request ${answer.request_id ?? 'unknown'})`, 'retryable');
    const image = await downloadImage(imageUrl, { dispatcher: this.agent, signal, maxBytes: MAX_RESULT_IMAGE_BYTES });
    // Tolerated rather than expected: a rewritten prompt, if reported, arrives as a text item beside the image.
    const revisedPrompt = content.find((item) => typeof item.text === 'string')?.text;
    // DashScope draws its own mark when asked (`parameters.watermark`).
    return { image, watermarked: true, ...(revisedPrompt ? { revisedPrompt } : {}) };
  }
}

/** The request body; inputs travel inline as data URIs, so the upstream never has to reach back to us. */
function generationRequest(model: string, call: ImageEditCall): GenerationRequest {
  const content: ContentItem[] = call.images.map((input) => ({
    image: `data:${input.mime};base64,${input.data.toString('base64')}`,
  }));
  content.push({ text: call.prompt });
  return {
    model,
    input: { messages: [{ role: 'user', content }] },
    parameters: {
      n: 1,
      ...(call.negativePrompt ? { negative_prompt: call.negativePrompt } : {}),
      ...(call.size ? { size: `${call.size.width}*${call.size.height}` } : {}),
      ...(call.seed !== undefined ? { seed: call.seed } : {}),
      ...(call.promptExtend !== undefined ? { prompt_extend: call.promptExtend } : {}),
      ...(call.watermark !== undefined ? { watermark: call.watermark } : {}),
    },
  };
}
