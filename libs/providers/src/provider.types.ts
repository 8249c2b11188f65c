import type { ProviderName, ResolvedRoute } from '@gateway/catalog';
import type { FetchReach } from '@gateway/outbound';
import type {
  ChatChoice,
  ChatFeature,
  ChatRequestBody,
  ResponseStatus,
  ResponsesUsage,
  UpstreamResponsesRequest,
  UpstreamUsage,
} from '@gateway/contracts';

export interface EmbeddingsCall {
  input: string[];
  dimensions?: number;
  user?: string;
}

/** The upstream's id of the call that answered, kept for the task record and logs (never shown to callers). */
interface UpstreamIdentified {
  requestId?: string;
  /** What the upstream's answer stated it used, only the figures it stated (for reconciling with its bill). */
  reported?: UpstreamUsage;
}

export interface EmbeddingsAnswer extends UpstreamIdentified {
  vectors: number[][];
  promptTokens: number;
}

/** A chat completion as the caller asked for it (OpenAI's fields), and what of it needs a capable route. */
export interface ChatCall {
  request: ChatRequestBody;
  /** Features the request needs; the router only tries routes that declare every one of them. */
  features: ChatFeature[];
}

export interface ChatAnswer extends UpstreamIdentified {
  /** OpenAI's choices: `n` of them, each with its message (text, tool calls, refusal), finish reason and logprobs. */
  choices: ChatChoice[];
  promptTokens: number;
  completionTokens: number;
  systemFingerprint?: string;
  /** An upstream's `prompt_tokens_details` / `completion_tokens_details`, passed on as it sent them. */
  usageDetails?: Record<string, unknown>;
}

/**
 * A POST /v1/responses request: the Chat Completions request it translates to, for any chat route, and, when the
 * model has a route whose upstream has the Responses endpoint (catalog `responses`), the request that upstream is
 * sent instead.
 */
export interface RespondCall extends ChatCall {
  responses?: UpstreamResponsesRequest;
}

/** The `response` object an upstream answered on its Responses endpoint, as far as the gateway reads it. */
export interface UpstreamResponse {
  status: ResponseStatus;
  /** Its output items as sent: messages, function calls, and kinds the gateway leaves out (reasoning, …). */
  output: Record<string, unknown>[];
  incomplete_details?: { reason: string } | null;
  usage?: Partial<ResponsesUsage> | null;
  [field: string]: unknown;
}

/** An upstream's answer on its Responses endpoint, with the token counts it is billed by. */
export interface ResponsesAnswer extends UpstreamIdentified {
  response: UpstreamResponse;
  promptTokens: number;
  completionTokens: number;
}

/** What a Responses request got from a route: the upstream's own response, or a chat completion to shape as one. */
export type RespondAnswer = ResponsesAnswer | ChatAnswer;

export function isResponsesAnswer(answer: RespondAnswer): answer is ResponsesAnswer {
  return 'response' in answer;
}

/** One Server-Sent Event of an upstream's streamed response (`response.output_text.delta`, …), as it sent it. */
export interface ResponsesStreamEvent {
  type: string;
  sequence_number?: number;
  [field: string]: unknown;
}

export interface ImageEditInput {
  data: Buffer;
  mime: string;
  width: number;
  height: number;
  /** The caller's URL, for an input given as one: an upstream that fetches URLs itself may be sent it instead. */
  url?: string;
  /** How the worker fetched `url`: whether the upstream could fetch it alike (no redirect, public, sized). */
  reach?: FetchReach;
  /** Size of the input as the caller sent it (`data` may be a conversion, e.g. a BMP's PNG). */
  sourceBytes: number;
}

export interface ImageEditCall {
  /** 1–3 inputs in request order (图1..图3), already decoded and validated; `mime` e.g. image/png. */
  images: ImageEditInput[];
  prompt: string;
  negativePrompt?: string;
  /** Requested output size, when the caller gave one. */
  size?: { width: number; height: number };
  /** This output's seed: the request's seed plus its index, so each of n outputs differs yet repeats run to run. */
  seed?: number;
  /** 0-based position of this output among the request's n. */
  variation: number;
  promptExtend?: boolean;
  watermark?: boolean;
}

/**
 * One generated image per call: the worker makes one call per requested image (n calls), so each delivered image
 * is billed on its own and a failure of image 3 of 4 still delivers the other 3.
 */
export interface ImageEditAnswer extends UpstreamIdentified {
  /** The image bytes as the upstream returned them (PNG/JPEG/WEBP); the worker converts to PNG. */
  image: Buffer;
  /** The rewritten prompt, if the upstream reports one. */
  revisedPrompt?: string;
  /** The provider applied the requested watermark itself; otherwise the worker stamps one when asked. */
  watermarked?: boolean;
  /**
   * The provider chose the output geometry itself (the local editor sizes to its edited picture): a PNG the worker
   * keeps as it is, instead of fitting it to the last image's geometry.
   */
  shaped?: boolean;
}

/** One OpenAI `chat.completion.chunk` object, as the upstream sent it (or as the local model produced it). */
export interface ChatChunk {
  id?: string;
  object?: string;
  created?: number;
  model?: string;
  choices: {
    index: number;
    delta: { role?: string; content?: string | null; [field: string]: unknown };
    finish_reason: string | null;
    [field: string]: unknown;
  }[];
  usage?: { prompt_tokens: number; completion_tokens: number; total_tokens: number } | null;
  [field: string]: unknown;
}

/** One way of reaching models. Adapters throw ProviderError so the router can tell retryable failures apart. */
export interface ModelProvider {
  readonly name: ProviderName;
  embed?(route: ResolvedRoute, call: EmbeddingsCall): Promise<EmbeddingsAnswer>;
  chat?(route: ResolvedRoute, call: ChatCall): Promise<ChatAnswer>;
  /**
   * A streamed chat completion: every chunk goes to `onChunk` as it arrives; resolves with the whole answer once
   * the stream ends, or once `signal` aborts it (then with what was generated so far, finish reason `cancelled`).
   */
  streamChat?(
    route: ResolvedRoute,
    call: ChatCall,
    onChunk: (chunk: ChatChunk) => Promise<void>,
    signal: AbortSignal,
  ): Promise<ChatAnswer>;
  editImage?(route: ResolvedRoute, call: ImageEditCall): Promise<ImageEditAnswer>;
  /**
   * Does the work editImage's requests need from these inputs (scaling, encoding) once for a job's n calls, before
   * the first waits for its paced turn: each call then reaches the upstream when its turn comes. Never rejects: a
   * failure is met again, and reported, by the call that sends the image.
   */
  prepareImages?(images: readonly ImageEditInput[]): Promise<void>;
  /** A Responses request on the upstream's own Responses endpoint (routes with catalog `responses`). */
  respond?(route: ResolvedRoute, call: PassedThroughCall): Promise<ResponsesAnswer>;
  /**
   * The same, streamed: every event goes to `onEvent` as it arrives; resolves with the whole response once the stream
   * ends, or once `signal` aborts it (then with what was generated so far, status `cancelled`).
   */
  streamRespond?(
    route: ResolvedRoute,
    call: PassedThroughCall,
    onEvent: (event: ResponsesStreamEvent) => Promise<void>,
    signal: AbortSignal,
  ): Promise<ResponsesAnswer>;
}

/** A Responses request that goes to an upstream's Responses endpoint. */
export type PassedThroughCall = RespondCall & { responses: UpstreamResponsesRequest };

export type ProviderFailure =
  /** Network error before the request was sent, timeout of a call that generates nothing billable, 408, 429 or 5xx: retry, then the next route. */
  | 'retryable'
  /** The upstream refused our account, key or model (401/403/404, overdue bill, quota spent): the next route may work. */
  | 'route'
  /**
   * The upstream may already have done, and billed, the work (an image generated but not downloaded, a generation
   * that timed out): repeating the call could bill twice, so the next route is tried instead.
   */
  | 'spent'
  /** The upstream judged the request itself invalid (400/413/415/422): the caller must change it. */
  | 'request'
  /** The upstream's content inspection refused the input or what it made of it. */
  | 'content';

export interface ProviderErrorDetails {
  /** Seconds the upstream asked us to wait (Retry-After). */
  retryAfter?: number;
  /** The upstream's error code, e.g. Arrearage or rate_limit_exceeded. */
  code?: string;
  /** The upstream's id of the request, for reconciling with its logs and bill; never shown to callers as ours. */
  requestId?: string;
}

export class ProviderError extends Error {
  readonly retryAfter?: number;
  readonly code?: string;
  readonly requestId?: string;

  constructor(
    message: string,
    readonly failure: ProviderFailure,
    readonly status?: number,
    details: ProviderErrorDetails = {},
  ) {
    super(message);
    this.name = 'ProviderError';
    this.retryAfter = details.retryAfter;
    this.code = details.code;
    this.requestId = details.requestId;
  }
}
