import type { ResolvedRoute } from '@gateway/catalog';
import { editedSize, extendPrompt, LocalEditEngine, outputGeometry } from '@gateway/imaging';
import { Injectable } from '@nestjs/common';
import { EmbeddingsAnswer, EmbeddingsCall, ImageEditAnswer, ImageEditCall, ModelProvider, ProviderError } from '../provider.types';
import { countTokens, hashEmbedding } from './hash-embedder';

const DEFAULT_DIMENSIONS = 1024;

/** Models that run inside the worker with no network. */
@Injectable()
export class LocalProvider implements ModelProvider {
  readonly name = 'local' as const;
  private readonly editor = new LocalEditEngine();

  async embed(route: ResolvedRoute, call: EmbeddingsCall): Promise<EmbeddingsAnswer> {
    if (route.model !== 'hash-embedding-v1') throw new ProviderError(`local model ${route.model} is not available`, 'route');
    const dimensions = call.dimensions ?? DEFAULT_DIMENSIONS;
    return {
      vectors: call.input.map((text) => hashEmbedding(text, dimensions)),
      promptTokens: call.input.reduce((sum, text) => sum + countTokens(text), 0),
    };
  }

  /** The embedded image editor: instruction-driven sharp operations, deterministic for a seed and variation. */
  async editImage(route: ResolvedRoute, call: ImageEditCall): Promise<ImageEditAnswer> {
    if (route.model !== 'local-image-edit') throw new ProviderError(`local model ${route.model} is not available`, 'route');
    const prompt = call.promptExtend ? extendPrompt(call.prompt, call.images.length) : call.prompt;
    // Without a size, the output takes the edited picture's shape (a rotated or side-by-side result is not
    // letterboxed); for edits that keep the shape that is the last image's aspect, as DESIGN §4 asks.
    const output = call.size ?? outputGeometry(editedSize(call.images, prompt, call.negativePrompt));
    const result = await this.editor.edit({
      images: call.images.map((image) => image.data),
      prompt,
      negativePrompt: call.negativePrompt,
      seed: call.seed ?? 0,
      variation: call.variation,
      output,
      watermark: call.watermark ?? false,
    });
    // The prompt as used (cut or rewritten, DESIGN §4), then the editor's account of what it applied and what not.
    return { image: result.png, revisedPrompt: `${prompt}\n\n${result.revisedPrompt}` };
  }
}
