import type { ResolvedRoute } from '@gateway/catalog';
import { Injectable } from '@nestjs/common';
import { EmbeddingsAnswer, EmbeddingsCall, ModelProvider, ProviderError } from '../provider.types';
import { countTokens, hashEmbedding } from './hash-embedder';

const DEFAULT_DIMENSIONS = 1024;

/** Models that run inside the worker with no network. */
@Injectable()
export class LocalProvider implements ModelProvider {
  readonly name = 'local' as const;

  async embed(route: ResolvedRoute, call: EmbeddingsCall): Promise<EmbeddingsAnswer> {
    if (route.model !== 'hash-embedding-v1') throw new ProviderError(`local model ${route.model} is not available`, 'route');
    const dimensions = call.dimensions ?? DEFAULT_DIMENSIONS;
    return {
      vectors: call.input.map((text) => hashEmbedding(text, dimensions)),
      promptTokens: call.input.reduce((sum, text) => sum + countTokens(text), 0),
    };
  }
}
