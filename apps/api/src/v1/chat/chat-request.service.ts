import { CatalogService } from '@gateway/catalog';
import { GatewayError } from '@gateway/common';
import { ENDPOINTS } from '@gateway/contracts';
import { ChatJob, TaskEnvelope } from '@gateway/queue';
import { countMessageTokens } from '@gateway/providers';
import { Injectable } from '@nestjs/common';
import { ChatCompletionRequestDto } from './chat.dto';

/** Completion tokens reserved against a quota when the request sets no max_tokens. */
const DEFAULT_COMPLETION_RESERVE = 256;

/** Per-model rules for a chat completion request. */
@Injectable()
export class ChatRequestService {
  constructor(private readonly catalog: CatalogService) {}

  check(dto: ChatCompletionRequestDto): {
    resolvedModel: string;
    estimatedTokens: number;
    request: Omit<ChatJob, keyof TaskEnvelope>;
  } {
    const { spec } = this.catalog.resolve(dto.model, ENDPOINTS.chat.capability);
    if (dto.stream_options && !dto.stream) {
      throw new GatewayError('InvalidParameter', 'stream_options is only allowed with stream: true', {
        param: 'stream_options',
      });
    }
    const maxTokens = spec.limits.max_tokens;
    if (maxTokens && dto.max_tokens && dto.max_tokens > maxTokens) {
      throw new GatewayError('InvalidParameter', `max_tokens must be at most ${maxTokens} for ${spec.id}`, {
        param: 'max_tokens',
      });
    }
    const promptTokens = countMessageTokens(dto.messages);
    return {
      resolvedModel: spec.id,
      estimatedTokens: promptTokens + (dto.max_tokens ?? DEFAULT_COMPLETION_RESERVE),
      request: {
        messages: dto.messages.map(({ role, content, name }) => ({ role, content, ...(name ? { name } : {}) })),
        maxTokens: dto.max_tokens,
        temperature: dto.temperature,
        topP: dto.top_p,
        stop: typeof dto.stop === 'string' ? [dto.stop] : dto.stop,
        seed: dto.seed,
        user: dto.user,
        ...(dto.stream ? { stream: { includeUsage: dto.stream_options?.include_usage ?? false } } : {}),
      },
    };
  }
}
