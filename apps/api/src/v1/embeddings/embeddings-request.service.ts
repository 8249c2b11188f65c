import { CatalogService } from '@gateway/catalog';
import { GatewayError } from '@gateway/common';
import { ENDPOINTS } from '@gateway/contracts';
import { countTokens } from '@gateway/providers';
import { Injectable } from '@nestjs/common';
import { EmbeddingsRequestDto } from './embeddings.dto';

export interface CheckedEmbeddingsRequest {
  resolvedModel: string;
  input: string[];
  dimensions: number;
  encodingFormat: 'float' | 'base64';
  estimatedTokens: number;
}

/** The catalog's per-model rules for an embeddings request (docs/contracts.md). */
@Injectable()
export class EmbeddingsRequestService {
  constructor(private readonly catalog: CatalogService) {}

  check(dto: EmbeddingsRequestDto): CheckedEmbeddingsRequest {
    const { spec } = this.catalog.resolve(dto.model, ENDPOINTS.embeddings.capability);
    const limits = spec.limits;
    const input = typeof dto.input === 'string' ? [dto.input] : dto.input;
    if (limits.max_inputs && input.length > limits.max_inputs) {
      throw new GatewayError(
        'InvalidParameter',
        `${spec.id} accepts at most ${limits.max_inputs} inputs per request, got ${input.length}`,
        { param: 'input' },
      );
    }
    const maxTokens = limits.max_input_tokens;
    if (maxTokens) {
      input.forEach((text, index) => {
        // Cheap upper bound first: a text can't hold more tokens than UTF-16 code units.
        if (text.length > maxTokens && countTokens(text) > maxTokens) {
          throw new GatewayError(
            'InvalidParameter',
            `input[${index}] is longer than ${limits.max_input_tokens} tokens`,
            {
              param: typeof dto.input === 'string' ? 'input' : `input[${index}]`,
            },
          );
        }
      });
    }
    const supported = limits.dimensions ?? [];
    const dimensions = dto.dimensions ?? limits.default_dimensions ?? supported[0];
    if (dto.dimensions !== undefined && !supported.includes(dto.dimensions)) {
      throw new GatewayError('InvalidParameter', `dimensions must be one of ${supported.join(', ')} for ${spec.id}`, {
        param: 'dimensions',
      });
    }
    const estimatedTokens = input.reduce((sum, text) => sum + countTokens(text), 0);
    return {
      resolvedModel: spec.id,
      input,
      dimensions,
      encodingFormat: dto.encoding_format ?? 'float',
      estimatedTokens,
    };
  }
}
