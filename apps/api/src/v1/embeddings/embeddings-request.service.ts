import { CatalogService, tokenizerOf } from '@gateway/catalog';
import { GatewayError } from '@gateway/common';
import { ENDPOINTS } from '@gateway/contracts';
import { Injectable } from '@nestjs/common';
import { OPENAI_MAX_INPUTS, readEmbeddingInputs } from './embedding-inputs';
import { EmbeddingsRequestDto } from './embeddings.dto';

export interface CheckedEmbeddingsRequest {
  resolvedModel: string;
  /** The inputs as text, token ids decoded. */
  input: string[];
  dimensions: number;
  encodingFormat: 'float' | 'base64';
  /**
   * Tokens of the inputs by the model's tokenizer (embedding-inputs.ts says when counted), held against a token
   * quota until the upstream reports its count.
   */
  reserveTokens: () => number;
}

/** The catalog's per-model rules for an embeddings request (docs/contracts.md). */
@Injectable()
export class EmbeddingsRequestService {
  constructor(private readonly catalog: CatalogService) {}

  check(dto: EmbeddingsRequestDto): CheckedEmbeddingsRequest {
    const { spec } = this.catalog.resolve(dto.model, ENDPOINTS.embeddings.capability);
    const limits = spec.limits;
    const supported = limits.dimensions ?? [];
    const dimensions = dto.dimensions ?? limits.default_dimensions ?? supported[0];
    if (dto.dimensions !== undefined && !supported.includes(dto.dimensions)) {
      throw new GatewayError('InvalidParameter', `dimensions must be one of ${supported.join(', ')} for ${spec.id}`, {
        param: 'dimensions',
      });
    }
    // Last: reading the inputs is the one check whose cost grows with the request.
    const { texts, tokens } = readEmbeddingInputs(dto.input, {
      maxInputs: limits.max_inputs ?? OPENAI_MAX_INPUTS,
      maxInputTokens: limits.max_input_tokens ?? 0,
      tokenizer: tokenizerOf(spec.tokenizer),
    });
    return {
      resolvedModel: spec.id,
      input: texts,
      dimensions,
      encodingFormat: dto.encoding_format ?? 'float',
      reserveTokens: tokens,
    };
  }
}
