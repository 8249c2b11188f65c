import { CatalogService, countMessageTokens, ModelSpec, ResolvedRoute, tokenizerOf } from '@gateway/catalog';
import { GatewayError } from '@gateway/common';
import { ChatMessage, ChatRequestBody, ENDPOINTS } from '@gateway/contracts';
import { ChatJob, TaskEnvelope } from '@gateway/queue';
import { Injectable } from '@nestjs/common';
import { jsonBodyCheck } from '../../http/json-body';
import { FeatureUse, featuresOf } from './chat-features';
import { CHAT_REQUEST_SCHEMA } from './chat-request.schema';

/** Completion tokens reserved against a quota when the request sets no max_tokens. */
const DEFAULT_COMPLETION_RESERVE = 256;

/** The request as the schema admits it: OpenAI's fields plus `model` and the streaming ones. */
export type ChatCompletionRequest = ChatRequestBody & {
  model: string;
  stream?: boolean | null;
  stream_options?: { include_usage?: boolean } | null;
};

export interface CheckedChatRequest {
  resolvedModel: string;
  /**
   * Tokens held against a token quota until the task reports its usage: the messages by the model's tokenizer and
   * the completion's reserve. Counted only when a quota asks (LimitsService.admit).
   */
  reserveTokens: () => number;
  stream: boolean;
  request: Omit<ChatJob, keyof TaskEnvelope>;
}

const checkShape = jsonBodyCheck<ChatCompletionRequest>(CHAT_REQUEST_SCHEMA);

/** Per-model rules for a chat completion request (docs/contracts.md, chat). */
@Injectable()
export class ChatRequestService {
  constructor(private readonly catalog: CatalogService) {}

  check(body: unknown): CheckedChatRequest {
    const dto = checkShape(body);
    const { spec, routes } = this.catalog.resolve(dto.model, ENDPOINTS.chat.capability);
    checkRules(dto, spec);
    const uses = featuresOf(dto);
    assertSomeRouteHonours(uses, routes, spec);
    const { model, stream, stream_options, ...request } = dto;
    const completionTokens = dto.max_completion_tokens ?? dto.max_tokens ?? DEFAULT_COMPLETION_RESERVE;
    const tokenizer = tokenizerOf(spec.tokenizer);
    return {
      resolvedModel: spec.id,
      reserveTokens: () => countMessageTokens(dto.messages, tokenizer) + completionTokens * (dto.n ?? 1),
      stream: stream === true,
      request: {
        request,
        features: uses.map((use) => use.feature),
        ...(stream ? { stream: { includeUsage: stream_options?.include_usage ?? false } } : {}),
      },
    };
  }
}

/** OpenAI's rules across fields, which a schema cannot say. */
function checkRules(dto: ChatCompletionRequest, spec: ModelSpec): void {
  if (dto.stream_options && !dto.stream) invalid('stream_options is only allowed with stream: true', 'stream_options');
  const limit = spec.limits.max_tokens;
  for (const field of ['max_tokens', 'max_completion_tokens'] as const) {
    const value = dto[field];
    if (limit && value && value > limit) invalid(`${field} must be at most ${limit} for ${spec.id}`, field);
  }
  if (dto.top_logprobs !== undefined && dto.top_logprobs !== null && !dto.logprobs)
    invalid('top_logprobs is only allowed with logprobs: true', 'top_logprobs');
  const toolNames = new Set((dto.tools ?? []).map((tool) => tool.function.name));
  if (dto.tool_choice !== undefined && toolNames.size === 0 && dto.tool_choice !== 'none')
    invalid('tool_choice is only allowed when tools are given', 'tool_choice');
  const choice = dto.tool_choice;
  if (typeof choice === 'object' && choice.type === 'function' && !toolNames.has(choice.function.name))
    invalid(`tool_choice names the tool "${choice.function.name}", which is not in tools`, 'tool_choice.function.name');
  if (toolNames.size < (dto.tools?.length ?? 0)) invalid('tools must have distinct function names', 'tools');
  checkConversation(dto.messages);
}

/** Assistant turns say something; a tool result answers a call an earlier assistant turn made. */
function checkConversation(messages: ChatMessage[]): void {
  const calls = new Set<string>();
  messages.forEach((message, index) => {
    if (message.role === 'assistant') {
      const empty =
        (message.content === undefined || message.content === null) &&
        !message.tool_calls?.length &&
        !message.function_call &&
        !message.refusal &&
        !message.audio;
      if (empty) invalid(`messages[${index}] must have content or tool_calls`, `messages[${index}].content`);
      for (const call of message.tool_calls ?? []) calls.add(call.id);
    }
    if (message.role === 'tool' && !calls.has(message.tool_call_id ?? '')) {
      invalid(
        `messages[${index}] answers tool_call_id "${message.tool_call_id}", which no earlier assistant message's tool_calls has`,
        `messages[${index}].tool_call_id`,
      );
    }
  });
}

/**
 * A request is queued only if one route of the model can honour all of it; what none can is refused by name,
 * never silently dropped (the router then only tries the routes that can).
 */
function assertSomeRouteHonours(uses: FeatureUse[], routes: ResolvedRoute[], spec: ModelSpec): void {
  if (uses.length === 0) return;
  const honours = (route: ResolvedRoute, use: FeatureUse) => route.features?.includes(use.feature) ?? false;
  if (routes.some((route) => uses.every((use) => honours(route, use)))) return;
  const unsupported = uses.find((use) => !routes.some((route) => honours(route, use)));
  const listed = `GET /v1/models/${spec.id} lists what they offer`;
  if (unsupported) {
    const { param, feature } = unsupported;
    const what = param === feature ? `${param} is not supported by ${spec.id}` : `${param} needs ${feature}, which`;
    const message =
      param === feature
        ? `${what}: none of its configured routes offers it (${listed})`
        : `${what} none of ${spec.id}'s configured routes offers (${listed})`;
    throw new GatewayError('UnsupportedParameter', message, { param });
  }
  throw new GatewayError(
    'UnsupportedParameter',
    `no configured route of ${spec.id} supports ${uses.map((use) => use.param).join(' together with ')} (${listed})`,
    { param: uses[uses.length - 1].param },
  );
}

function invalid(message: string, param: string): never {
  throw new GatewayError('InvalidParameter', message, { param });
}
