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

export interface ImageEditCall {
  /** 1–3 inputs in request order (图1..图3), already decoded and validated; `mime` e.g. image/png. */
  images: { data: Buffer; mime: string; width: number; height: number }[];
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
export interface ImageEditAnswer {
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
