import Big from 'big.js';
import { formatNanos, imagesCostNanos, nanosToNumber, priceToNanos, sumNanos, tokenCostNanos } from './money';

const price = (decimal: string) => priceToNanos(decimal, 'price.per_1k_input_tokens');

describe('money in nanos', () => {
  it('reads catalog prices as exact integer nanos', () => {
    expect(price('0.0005')).toBe(500_000);
    expect(price('0.0007')).toBe(700_000);
    expect(price('0.2')).toBe(200_000_000);
    expect(price('1e-9')).toBe(1);
    expect(price('0.000000001')).toBe(1);
    expect(price('0')).toBe(0);
    expect(price('+1.5')).toBe(1_500_000_000);
    expect(price('9007199.254740991')).toBe(Number.MAX_SAFE_INTEGER);
  });

  it('refuses a price finer than 1 nano, negative, too large or not a number, naming the field', () => {
    expect(() => price('0.0000000001')).toThrow(
      'price.per_1k_input_tokens is 0.0000000001, finer than the smallest amount the gateway counts, 1 nano',
    );
    expect(() => price('1e-10')).toThrow('finer than the smallest amount');
    expect(() => price('0.0000000015')).toThrow('finer than the smallest amount');
    expect(() => price('-0.0005')).toThrow('price.per_1k_input_tokens must not be negative');
    expect(() => price('9007199.254740992')).toThrow('above the largest price');
    expect(() => price('.inf')).toThrow('price.per_1k_input_tokens must be a decimal number');
    expect(() => price('0x10')).toThrow('must be a decimal number');
  });

  it('rounds a call half up to 1 nano: exactly .5 up, .499 down', () => {
    // 1 nano per 1k tokens: a token costs a thousandth of a nano.
    expect(tokenCostNanos(1, 0, 500)).toBe(1);
    expect(tokenCostNanos(1, 0, 499)).toBe(0);
    expect(tokenCostNanos(1, 0, 1_500)).toBe(2);
    expect(tokenCostNanos(1, 0, 2_499)).toBe(2);
    // Input and output are added before the call is rounded, once.
    expect(tokenCostNanos(1, 1, 250, 250)).toBe(1);
    expect(tokenCostNanos(1, 1, 249, 250)).toBe(0);
  });

  it('prices tokens exactly at catalog prices', () => {
    expect(tokenCostNanos(price('0.0005'), 0, 2)).toBe(1_000);
    expect(tokenCostNanos(price('0.0005'), 0, 3)).toBe(1_500);
    expect(tokenCostNanos(price('0.0007'), 0, 7)).toBe(4_900);
    expect(tokenCostNanos(price('0.0008'), price('0.002'), 123, 45)).toBe(188_400);
    expect(tokenCostNanos(price('0.0005'), price('0.002'), 0, 0)).toBe(0);
    expect(tokenCostNanos(price('1e-9'), 0, 1)).toBe(0);
  });

  it('prices large token counts exactly and refuses a cost it could not hold exactly', () => {
    expect(tokenCostNanos(price('0.0005'), 0, 1_000_000_000_000)).toBe(500_000_000_000_000);
    expect(tokenCostNanos(price('0.0007'), price('0.0007'), 4_000_000_000_001, 3)).toBe(2_800_000_000_002_800);
    expect(() => tokenCostNanos(price('0.002'), 0, 1e15)).toThrow('more than one task can be billed exactly');
    expect(() => tokenCostNanos(price('0.0005'), 0, 1.5)).toThrow('a token count must be a whole number');
    expect(() => tokenCostNanos(price('0.0005'), 0, -1)).toThrow('a token count must be a whole number');
  });

  it('bills images exactly: n × unit price', () => {
    expect(imagesCostNanos(Array(3).fill(price('0.2')))).toBe(600_000_000);
    expect(imagesCostNanos([])).toBe(0);
    expect(formatNanos(imagesCostNanos(Array(3).fill(price('0.1'))))).toBe('0.3');
    // Images made by different routes, each at its own price.
    expect(formatNanos(imagesCostNanos([price('0.2'), price('0.05')]))).toBe('0.25');
  });

  it('formats nanos as the exact decimal', () => {
    expect(formatNanos(1)).toBe('0.000000001');
    expect(formatNanos(1_080 * 1_000)).toBe('0.00108');
    expect(formatNanos(0)).toBe('0');
    expect(formatNanos(400_000_000)).toBe('0.4');
    expect(formatNanos(12_345_000_000_000)).toBe('12345');
    expect(formatNanos(Number.MAX_SAFE_INTEGER)).toBe('9007199.254740991');
    expect(formatNanos(10n ** 30n + 1n)).toBe('1000000000000000000000.000000001');
  });

  it('sums integers, where floats drift', () => {
    const costs = Array.from({ length: 1_080 }, () => 1_000);
    expect(sumNanos(costs)).toBe(1_080_000n);
    expect(formatNanos(sumNanos(costs))).toBe('0.00108');
    expect(costs.reduce((sum, nanos) => sum + nanosToNumber(nanos), 0)).not.toBe(0.00108);
    expect(sumNanos([Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER])).toBe(18_014_398_509_481_982n);
  });

  it('gives the JSON number that prints as the exact decimal', () => {
    expect(nanosToNumber(1_000)).toBe(0.000001);
    expect(JSON.stringify({ cost: nanosToNumber(1_000) })).toBe('{"cost":0.000001}');
    expect(JSON.stringify({ cost: nanosToNumber(400_000_000) })).toBe('{"cost":0.4}');
    expect(JSON.stringify({ cost: nanosToNumber(1) })).toBe('{"cost":1e-9}');
    // Every amount below a million units: the printed number is the exact decimal.
    let seed = 7;
    const amounts = Array.from({ length: 10_000 }, () => {
      seed = (seed * 48_271) % 2_147_483_647;
      return (seed * 465_661) % 999_999_999_999_999;
    });
    expect(amounts.filter((nanos) => !new Big(String(nanosToNumber(nanos))).eq(formatNanos(nanos)))).toEqual([]);
  });
});
