import { GatewayError } from '@gateway/common';
import { dayRange } from './listing-query';

describe('dayRange', () => {
  it.each([
    ['to', undefined, '0000-00-00'],
    ['to', undefined, '2025-02-30'],
    ['from', '2025-13-01', '2025-12-31'],
  ])('refuses a %s that is no calendar day with 400 InvalidParameter, not a 500', (param, from, to) => {
    const refusal = (() => {
      try {
        dayRange(from, to);
      } catch (error) {
        return error;
      }
    })();
    expect(refusal).toBeInstanceOf(GatewayError);
    expect(refusal).toMatchObject({ code: 'InvalidParameter', param });
  });

  it('counts 30 days back from to when from is left out', () => {
    expect(dayRange(undefined, '2025-03-01')).toEqual({ from: '2025-01-31', to: '2025-03-01' });
  });
});
