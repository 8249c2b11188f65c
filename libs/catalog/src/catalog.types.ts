import type { Capability, ChatFeature } from '@gateway/contracts';

export type ProviderName = 'local' | 'openai-compatible' | 'dashscope';

/**
 * The tokenizers the gateway counts with (tokenizers/): OpenAI's two tiktoken encodings, and
 * Qwen's byte-level BPE (151,643 tokens), which DashScope's Qwen models count with.
 */
export const TOKENIZERS = ['cl100k_base', 'o200k_base', 'qwen2'] as const;
export type TokenizerName = (typeof TOKENIZERS)[number];

export interface RouteSpec {
  provider: ProviderName;
  /** Upstream name, configured by UPSTREAM_<NAME>_BASE_URL / _API_KEY; absent for `local`. */
  upstream?: string;
  /** Model id the provider knows. */
  model: string;
  base_path?: string;
  max_concurrency?: number;
  /**
   * Call starts per second on this route across all workers (RoutePacer), retries included: the upstream's
   * per-second request limit for the model. May be below 1 (0.5: one start every 2 s).
   */
  max_rps?: number;
  /**
   * Chat: the features this route honours (ChatFeature). Written in the catalog, or the provider's default when
   * left out (catalog-loader, DEFAULT_CHAT_FEATURES); always set once loaded.
   */
  features?: ChatFeature[];
  /**
   * openai-compatible: whose rules the upstream follows. `dashscope` is DashScope's compatible mode, which takes
   * less than OpenAI (libs/providers/src/openai-compatible/chat-dialects.ts translates or drops the rest).
   */
  dialect?: 'openai' | 'dashscope';
  /**
   * Chat, openai-compatible: the upstream has OpenAI's Responses endpoint (POST {base}/responses), so a POST
   * /v1/responses request goes to it as the caller sent it instead of as its Chat Completions translation. Off by
   * default; the catalog loader refuses it elsewhere.
   */
  responses?: boolean;
  /** Embeddings: the inputs one upstream call takes; a larger request is split into calls of this size. */
  batch_size?: number;
  /**
   * Embeddings: the vector space the route's vectors live in. Vectors of two spaces cannot be compared, so every
   * route of a model shares one (the loader refuses a model whose routes differ) and a fallback never mixes them.
   * Written in the catalog, or `<upstream>/<model>` (`local/<model>` for the local engine) when left out; always
   * set once loaded.
   */
  space?: string;
  /**
   * What the upstream counts this route's tokens with, where an answer states no usage (`tokenizer:` on the route).
   * The model's when left out; always set once loaded. The local engine reports its models' own counts.
   */
  tokenizer?: TokenizerName;
  /**
   * What the calls this route serves cost, field by field, where it differs from the model's price (`price:` on the
   * route): a caller pays for what served, e.g. the local engine after the upstream failed.
   */
  priceNanos?: ModelPriceNanos;
}

export interface ModelLimits {
  max_inputs?: number;
  max_input_tokens?: number;
  dimensions?: number[];
  default_dimensions?: number;
  max_tokens?: number;
  max_images?: number;
  max_n?: number;
  size?: boolean;
  prompt_extend?: boolean;
}

/** The price fields of config/models.yaml, written there as decimals of the catalog currency. */
export const PRICE_FIELDS = ['per_image', 'per_1k_input_tokens', 'per_1k_output_tokens'] as const;
export type PriceField = (typeof PRICE_FIELDS)[number];

/** A model's prices in integer nanos of the catalog currency (@gateway/common money), converted once at load. */
export type ModelPriceNanos = Partial<Record<PriceField, number>>;

export interface ModelSpec {
  id: string;
  capability: Capability;
  family?: string;
  aliases: string[];
  created: number;
  limits: ModelLimits;
  priceNanos: ModelPriceNanos;
  routes: RouteSpec[];
  /**
   * What the api counts a request's tokens with, for `max_input_tokens` and quota reservations (`tokenizer:` on the
   * model): as written, else its first route's, else cl100k_base.
   */
  tokenizer: TokenizerName;
  deprecated?: string;
  /**
   * This entry answers requests for another model's id while the upstream named here is not configured (the
   * embedded default standing in for an upstream model). Its own id, different from the other model's, is what
   * the answers name, so vectors of the two spaces are never given out under one id.
   */
  standsIn?: { for: string; whenNoUpstream: string };
}

/** A route ready to call: the upstream's address and key attached, and a stable label for metrics and limits. */
export interface ResolvedRoute extends RouteSpec {
  key: string;
  baseUrl?: string;
  apiKey?: string;
}

export interface ResolvedModel {
  /** The id as the caller wrote it. */
  requested: string;
  spec: ModelSpec;
  routes: ResolvedRoute[];
}
