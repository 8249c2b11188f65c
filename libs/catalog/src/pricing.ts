import type { ModelSpec } from './catalog.types';

/** What a call costs at the catalog's token prices, rounded to 1e-8 of the currency. */
export function tokenCost(spec: ModelSpec, promptTokens: number, completionTokens = 0): number {
  const input = ((spec.price.per_1k_input_tokens ?? 0) * promptTokens) / 1000;
  const output = ((spec.price.per_1k_output_tokens ?? 0) * completionTokens) / 1000;
  return Math.round((input + output) * 1e8) / 1e8;
}

/** What `images` delivered images cost at the catalog's unit price (n × unit price), rounded like tokenCost. */
export function imageCost(spec: ModelSpec, images: number): number {
  return Math.round((spec.price.per_image ?? 0) * images * 1e8) / 1e8;
}
