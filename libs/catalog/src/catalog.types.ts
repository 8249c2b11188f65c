import type { Capability } from '@gateway/contracts';

export type ProviderName = 'local' | 'openai-compatible' | 'dashscope';

export interface RouteSpec {
  provider: ProviderName;
  /** Upstream name, configured by UPSTREAM_<NAME>_BASE_URL / _API_KEY; absent for `local`. */
  upstream?: string;
  /** Model id the provider knows. */
  model: string;
  base_path?: string;
  max_concurrency?: number;
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

export interface ModelPrice {
  per_image?: number;
  per_1k_input_tokens?: number;
  per_1k_output_tokens?: number;
}

export interface ModelSpec {
  id: string;
  capability: Capability;
  family?: string;
  aliases: string[];
  created: number;
  limits: ModelLimits;
  price: ModelPrice;
  routes: RouteSpec[];
  deprecated?: string;
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
