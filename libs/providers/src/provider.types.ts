import type { ProviderName, ResolvedRoute } from '@gateway/catalog';

export interface EmbeddingsCall {
  input: string[];
  dimensions?: number;
  user?: string;
}

export interface EmbeddingsAnswer {
  vectors: number[][];
  promptTokens: number;
}

export interface ChatCall {
  messages: { role: string; content: string; name?: string }[];
  maxTokens?: number;
  temperature?: number;
  topP?: number;
  stop?: string[];
  seed?: number;
  user?: string;
}

export interface ChatAnswer {
  content: string;
  finishReason: string;
  promptTokens: number;
  completionTokens: number;
}

/** One way of reaching models. Adapters throw ProviderError so the router can tell retryable failures apart. */
export interface ModelProvider {
  readonly name: ProviderName;
  embed?(route: ResolvedRoute, call: EmbeddingsCall): Promise<EmbeddingsAnswer>;
  chat?(route: ResolvedRoute, call: ChatCall): Promise<ChatAnswer>;
}

export type ProviderFailure =
  /** Network error, timeout, 429 or 5xx: retry, then the next route. */
  | 'retryable'
  /** The upstream refused our credentials or the model (401/403/404 model): the next route may work. */
  | 'route'
  /** The upstream judged the request itself invalid (400/413/422): the caller must change it. */
  | 'request';

export class ProviderError extends Error {
  constructor(
    message: string,
    readonly failure: ProviderFailure,
    readonly status?: number,
    /** Seconds the upstream asked us to wait (Retry-After). */
    readonly retryAfter?: number,
  ) {
    super(message);
    this.name = 'ProviderError';
  }
}
