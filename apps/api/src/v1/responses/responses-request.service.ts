import { CatalogService } from '@gateway/catalog';
import { GatewayError } from '@gateway/common';
import { ChatMessage, ENDPOINTS, ResponsesEcho, ResponsesInputItem } from '@gateway/contracts';
import { ChatJob, TaskEnvelope } from '@gateway/queue';
import { Injectable } from '@nestjs/common';
import { jsonBodyCheck } from '../../http/json-body';
import { ChatRequestService } from '../chat/chat-request.service';
import { INPUT_ITEM_TYPES, RESPONSES_REQUEST_SCHEMA } from './responses-request.schema';
import { historyOf, MessageSource, ResponsesRequest, responsesParam, toChat } from './responses-to-chat';
import { upstreamRequest } from './responses-upstream';
import { StoredResponse, StoredResponses } from './stored-responses.service';

/**
 * The most a stored response keeps of its conversation (JSON characters), so a chain of `previous_response_id`
 * cannot grow a task record without bound: about the body limit, which bounds what one request can send.
 */
export const MAX_STORED_CONVERSATION_CHARS = 4_000_000;

export interface CheckedResponsesRequest {
  stream: boolean;
  /** What TaskSubmitter needs besides the endpoint, the principal and the HTTP exchange. */
  task: {
    model: string;
    resolvedModel: string;
    reserveTokens: () => number;
    request: Omit<ChatJob, keyof TaskEnvelope>;
  };
}

/** OpenAI's fields that no route here can honour: refused by name unless at their neutral value. */
const UNSUPPORTED: { field: keyof ResponsesRequest; neutral?: unknown; instead?: string }[] = [
  { field: 'background', neutral: false, instead: 'send X-Async: enable and read GET /v1/responses/{id}' },
  { field: 'conversation', instead: 'use previous_response_id' },
  { field: 'prompt', instead: 'send input and instructions' },
  { field: 'max_tool_calls' },
  { field: 'top_logprobs', neutral: 0 },
  { field: 'truncation', neutral: 'disabled' },
  { field: 'prompt_cache_retention' },
];

const checkShape = jsonBodyCheck<ResponsesRequest>(RESPONSES_REQUEST_SCHEMA);

/**
 * Per-model rules for a Responses request (docs/contracts.md, responses): its shape, what no route can honour, the
 * previous response and referenced items it continues from, then the Chat Completions request it translates to,
 * checked by ChatRequestService (catalog limits, and the features some route of the model must have) with every
 * problem named as the Responses caller wrote it.
 */
@Injectable()
export class ResponsesRequestService {
  constructor(
    private readonly catalog: CatalogService,
    private readonly chat: ChatRequestService,
    private readonly stored: StoredResponses,
  ) {}

  async check(body: unknown, appId: string): Promise<CheckedResponsesRequest> {
    this.refuseOtherKinds(body);
    const request = checkShape(body);
    refuseUnsupported(request);
    const previous = await this.previousOf(request, appId);
    const history = previous ? [...previous.conversation, ...historyOf(previous.response.output)] : [];
    const input = await this.resolveReferences(request.input, appId);
    const { body: chatBody, sources, conversationStart } = toChat({ ...request, input }, history);
    const store = request.store ?? true;
    if (store) assertStorable(chatBody.messages.slice(conversationStart), request);
    let checked;
    try {
      checked = this.chat.check(chatBody);
    } catch (error) {
      throw inResponsesTerms(error, sources);
    }
    return {
      stream: checked.stream,
      task: {
        model: request.model,
        resolvedModel: checked.resolvedModel,
        reserveTokens: checked.reserveTokens,
        request: {
          ...checked.request,
          responses: {
            echo: echoOf(request),
            ...(store ? { keepFrom: conversationStart } : {}),
            ...(this.hasResponsesRoute(checked.resolvedModel)
              ? { upstream: upstreamRequest({ ...request, input }, previous) }
              : {}),
          },
        },
      },
    };
  }

  /**
   * Tools, items and tool choices of OpenAI's other kinds (hosted tools, reasoning items, …) are refused as not
   * supported by the model, before the shape check would call them invalid. An unknown model is ModelNotFound first.
   */
  private refuseOtherKinds(body: unknown): void {
    if (typeof body !== 'object' || body === null) return;
    const { model, tools, input, tool_choice: choice } = body as Record<string, unknown>;
    if (typeof model !== 'string') return;
    const { spec } = this.catalog.resolve(model, ENDPOINTS.responses.capability);
    const refuse = (param: string, kind: unknown) => {
      throw new GatewayError(
        'UnsupportedParameter',
        `${param} "${String(kind)}" is not supported by ${spec.id} on this gateway`,
        { param },
      );
    };
    const typeOf = (value: unknown) =>
      typeof value === 'object' && value !== null ? (value as { type?: unknown }).type : undefined;
    if (Array.isArray(tools))
      tools.forEach((tool, i) => {
        const type = typeOf(tool);
        if (typeof type === 'string' && type !== 'function') refuse(`tools[${i}].type`, type);
      });
    if (Array.isArray(input))
      input.forEach((item, i) => {
        const type = typeOf(item);
        if (typeof type === 'string' && !(INPUT_ITEM_TYPES as readonly string[]).includes(type))
          refuse(`input[${i}].type`, type);
      });
    const choiceType = typeOf(choice);
    if (typeof choiceType === 'string' && choiceType !== 'function' && choiceType !== 'allowed_tools')
      refuse('tool_choice.type', choiceType);
  }

  /**
   * Whether a route of the model has the Responses endpoint (catalog `responses`), so the job carries the request as
   * that upstream is sent it too. The catalog's routes, configured here or not: the worker's configuration decides.
   */
  private hasResponsesRoute(modelId: string): boolean {
    return this.catalog.get(modelId).routes.some((route) => route.responses);
  }

  /**
   * The stored response `previous_response_id` continues, whose conversation (what came before it) and output come
   * before the new input.
   */
  private async previousOf(request: ResponsesRequest, appId: string): Promise<StoredResponse | null> {
    const id = request.previous_response_id;
    if (!id) return null;
    const previous = await this.stored.find(id, appId);
    if (!previous) {
      throw new GatewayError(
        'InvalidParameter',
        `previous response ${id} was not found: it must be a finished response of this application, created with store: true and within the result retention`,
        { param: 'previous_response_id' },
      );
    }
    return previous;
  }

  /** Each `item_reference` replaced by the stored output item it names. */
  private async resolveReferences(input: ResponsesRequest['input'], appId: string): Promise<ResponsesRequest['input']> {
    if (!Array.isArray(input) || !input.some((item) => item.type === 'item_reference')) return input;
    const seen = new Map<string, Promise<StoredResponse | null>>();
    return Promise.all(
      input.map(async (item, i): Promise<ResponsesInputItem> => {
        if (item.type !== 'item_reference') return item;
        const found = await this.stored.findItem(item.id, appId, seen);
        if (found) return found;
        throw new GatewayError(
          'InvalidParameter',
          `input[${i}] references the item ${item.id}, which no stored response of this application has`,
          { param: `input[${i}].id` },
        );
      }),
    );
  }
}

function refuseUnsupported(request: ResponsesRequest): void {
  const refuse = (param: string, instead?: string) => {
    throw new GatewayError(
      'UnsupportedParameter',
      `${param} is not supported by ${request.model} on this gateway${instead ? `; ${instead}` : ''}`,
      { param },
    );
  };
  for (const { field, neutral, instead } of UNSUPPORTED) {
    const value = request[field];
    if (value !== undefined && value !== null && value !== neutral) refuse(field, instead);
  }
  if (request.include?.length) refuse('include');
  if (request.reasoning?.summary) refuse('reasoning.summary');
  if (request.reasoning?.generate_summary) refuse('reasoning.generate_summary');
}

function assertStorable(conversation: ChatMessage[], request: ResponsesRequest): void {
  const size = JSON.stringify(conversation).length;
  if (size <= MAX_STORED_CONVERSATION_CHARS) return;
  throw new GatewayError(
    'InvalidParameter',
    `the conversation to store is ${size} characters, over the ${MAX_STORED_CONVERSATION_CHARS} a stored response keeps; start a new conversation, or send store: false`,
    { param: request.previous_response_id ? 'previous_response_id' : 'store' },
  );
}

/** A chat request's error, its field named as the Responses caller wrote it. */
function inResponsesTerms(error: unknown, sources: MessageSource[]): unknown {
  if (!(error instanceof GatewayError) || !error.param) return error;
  const param = responsesParam(error.param, sources);
  if (param === error.param) return error;
  return new GatewayError(error.code, error.message.split(error.param).join(param), {
    param,
    details: error.details,
    headers: error.headers,
  });
}

/** The request fields the response repeats, as sent, with OpenAI's defaults where it has them. */
function echoOf(request: ResponsesRequest): ResponsesEcho {
  return {
    instructions: request.instructions ?? null,
    max_output_tokens: request.max_output_tokens ?? null,
    metadata: request.metadata ?? {},
    parallel_tool_calls: request.parallel_tool_calls ?? true,
    previous_response_id: request.previous_response_id ?? null,
    reasoning: { effort: request.reasoning?.effort ?? null, summary: null },
    store: request.store ?? true,
    temperature: request.temperature ?? null,
    text: {
      format: request.text?.format ?? { type: 'text' },
      ...(request.text?.verbosity ? { verbosity: request.text.verbosity } : {}),
    },
    tool_choice: request.tool_choice ?? 'auto',
    tools: (request.tools ?? []).map(({ name, description, parameters, strict }) => ({
      type: 'function',
      name,
      description: description ?? null,
      parameters: parameters ?? null,
      strict: strict ?? null,
    })),
    top_p: request.top_p ?? null,
    truncation: 'disabled',
    user: request.user ?? null,
    safety_identifier: request.safety_identifier ?? null,
    prompt_cache_key: request.prompt_cache_key ?? null,
    service_tier: request.service_tier ?? null,
  };
}
