import Big from 'big.js';

/**
 * Money as nanos: integer billionths (1e-9) of the catalog currency, like google.type.Money's `nanos`. Prices are
 * converted from config/models.yaml's decimals once, when the catalog loads; costs are computed, stored and summed
 * as integers, and become decimals only to be shown (docs/contracts.md, "Money"). A single value is a plain JS
 * integer, exact up to Number.MAX_SAFE_INTEGER nanos (9,007,199.254740991 units); sums are BigInt.
 */
export const NANOS_PER_UNIT = 1_000_000_000;

/**
 * A price written as a decimal (`0.0005`, `1e-9`) in nanos. Refuses, naming `what`: anything but a decimal number, a
 * negative price, one finer than 1 nano, and one too large to be an exact JS integer.
 */
export function priceToNanos(decimal: string, what: string): number {
  let price: Big;
  try {
    // big.js reads a leading '-' but not '+', which YAML allows.
    price = new Big(decimal.trim().replace(/^\+/, ''));
  } catch {
    throw new Error(`${what} must be a decimal number, not "${decimal}"`);
  }
  if (price.lt(0)) throw new Error(`${what} must not be negative (${decimal})`);
  const nanos = price.times(NANOS_PER_UNIT);
  if (!nanos.eq(nanos.round(0, Big.roundDown)))
    throw new Error(`${what} is ${decimal}, finer than the smallest amount the gateway counts, 1 nano (0.000000001)`);
  if (nanos.gt(Number.MAX_SAFE_INTEGER))
    throw new Error(
      `${what} is ${decimal}, above the largest price the gateway counts exactly, ${formatNanos(Number.MAX_SAFE_INTEGER)}`,
    );
  return nanos.toNumber();
}

/**
 * What a call costs at per-1k-token prices, rounded half up to 1 nano once per call:
 * round_half_up((input × promptTokens + output × completionTokens) / 1000), in integers.
 */
export function tokenCostNanos(
  per1kInputNanos: number,
  per1kOutputNanos: number,
  promptTokens: number,
  completionTokens = 0,
): number {
  const thousandths =
    BigInt(per1kInputNanos) * tokens(promptTokens) + BigInt(per1kOutputNanos) * tokens(completionTokens);
  // Division truncates, and nothing here is negative, so adding half first rounds half up.
  return safeNanos((thousandths + 500n) / 1000n);
}

/** What images cost at their unit prices (one per image, each its route's): exact, no rounding. */
export function imagesCostNanos(unitPricesNanos: readonly number[]): number {
  return safeNanos(sumNanos(unitPricesNanos));
}

/** Adds amounts as BigInt, so a total of many tasks stays exact past Number.MAX_SAFE_INTEGER. */
export function sumNanos(amounts: Iterable<number | bigint>): bigint {
  let total = 0n;
  for (const amount of amounts) total += BigInt(amount);
  return total;
}

/** The exact decimal an amount of nanos stands for, in plain notation: 1 → "0.000000001", 1080000 → "0.00108". */
export function formatNanos(nanos: number | bigint): string {
  return new Big(String(nanos)).div(NANOS_PER_UNIT).toFixed();
}

/**
 * The amount as a JSON number. Division is correctly rounded, so the number prints as the exact decimal for any
 * amount of up to 15 significant digits (below a million units); JS prints below 1e-6 in exponent form (`1e-9`).
 */
export function nanosToNumber(nanos: number): number {
  return nanos / NANOS_PER_UNIT;
}

function tokens(count: number): bigint {
  if (!Number.isSafeInteger(count) || count < 0)
    throw new RangeError(`a token count must be a whole number ≥ 0, not ${count}`);
  return BigInt(count);
}

function safeNanos(nanos: bigint): number {
  if (nanos > BigInt(Number.MAX_SAFE_INTEGER))
    throw new RangeError(`a cost of ${formatNanos(nanos)} is more than one task can be billed exactly`);
  return Number(nanos);
}
