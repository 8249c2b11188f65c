import { NANOS_PER_UNIT } from '@gateway/common';
import type { UpstreamUsage } from '@gateway/contracts';
import Big from 'big.js';

/** An OpenAI-style `usage` object as upstreams send it: Chat Completions, Embeddings or Responses field names. */
export type StatedUsage = {
  prompt_tokens?: unknown;
  completion_tokens?: unknown;
  total_tokens?: unknown;
  input_tokens?: unknown;
  output_tokens?: unknown;
  /**
   * What the call cost, where the upstream states it: OpenRouter puts it in every answer's usage, in credits
   * (https://openrouter.ai/docs/use-cases/usage-accounting). Taken to be in the catalog's currency.
   */
  cost?: unknown;
};

/**
 * What an answer's `usage` states, for reconciling with the upstream's bill: only the figures it gives, so an answer
 * without usage reports nothing (not zeros). An embeddings answer may give `total_tokens` alone, which is its
 * prompt.
 */
export function reportedUsage(usage: StatedUsage | null | undefined): { reported?: UpstreamUsage } {
  if (!usage || typeof usage !== 'object') return {};
  const prompt = count(usage.prompt_tokens) ?? count(usage.input_tokens);
  const completion = count(usage.completion_tokens) ?? count(usage.output_tokens);
  const reported: UpstreamUsage = {
    ...(prompt !== undefined ? { promptTokens: prompt } : {}),
    ...(completion !== undefined ? { completionTokens: completion } : {}),
    ...(prompt === undefined && completion === undefined && count(usage.total_tokens) !== undefined
      ? { promptTokens: count(usage.total_tokens) }
      : {}),
    ...costOf(usage.cost),
  };
  return Object.keys(reported).length > 0 ? { reported } : {};
}

/** DashScope's image answer states `usage.image_count`, the images it generated (and bills). */
export function reportedImages(usage: { image_count?: unknown } | null | undefined): { reported?: UpstreamUsage } {
  const images = count(usage?.image_count);
  return images !== undefined ? { reported: { images } } : {};
}

function count(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : undefined;
}

/** A stated decimal cost in nanos, rounded half up; anything but a finite non-negative number states nothing. */
function costOf(cost: unknown): { costNanos?: number } {
  if (typeof cost !== 'number' || !Number.isFinite(cost) || cost < 0) return {};
  const nanos = new Big(String(cost)).times(NANOS_PER_UNIT).round(0, Big.roundHalfUp);
  return nanos.gt(Number.MAX_SAFE_INTEGER) ? {} : { costNanos: nanos.toNumber() };
}
