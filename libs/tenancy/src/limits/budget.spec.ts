import type { ModelSpec } from '@gateway/catalog';
import { budgetPeriodEnd, budgetPeriodOf, secondsToBudgetReset, worstCaseCostNanos } from './budget';

const spec = (priceNanos: ModelSpec['priceNanos'], routePrices: ModelSpec['priceNanos'][] = []) =>
  ({ priceNanos, routes: routePrices.map((price) => ({ priceNanos: price })) }) as unknown as ModelSpec;

describe('budget periods', () => {
  const at = new Date('2026-12-31T23:59:30.250Z');

  it('names the UTC day or month a moment falls in', () => {
    expect(budgetPeriodOf('day', at)).toBe('2026-12-31');
    expect(budgetPeriodOf('month', at)).toBe('2026-12');
  });

  it('ends at the next 00:00 UTC, or the first of the next month (across a year end)', () => {
    expect(new Date(budgetPeriodEnd('day', at)).toISOString()).toBe('2027-01-01T00:00:00.000Z');
    expect(new Date(budgetPeriodEnd('month', new Date('2026-02-10T08:00:00Z'))).toISOString()).toBe(
      '2026-03-01T00:00:00.000Z',
    );
    expect(secondsToBudgetReset('day', at)).toBe(30);
  });
});

describe('worstCaseCostNanos', () => {
  it('prices n images at the highest per-image price of the model and its routes', () => {
    expect(
      worstCaseCostNanos(spec({ per_image: 200_000_000 }, [{ per_image: 50_000_000 }]), { tokens: 0, images: 3 }),
    ).toBe(600_000_000);
    expect(worstCaseCostNanos(spec({ per_image: 100 }, [{ per_image: 300 }]), { tokens: 0, images: 2 })).toBe(600);
  });

  it('prices every reserved token at the highest per-token price, input or output', () => {
    // 0.0008 in, 0.002 out per 1k tokens: 1,000 tokens at the output price.
    const chat = spec({ per_1k_input_tokens: 800_000, per_1k_output_tokens: 2_000_000 });
    expect(worstCaseCostNanos(chat, { tokens: 1000, images: 0 })).toBe(2_000_000);
    expect(worstCaseCostNanos(spec({}), { tokens: 1000, images: 0 })).toBe(0);
  });
});
