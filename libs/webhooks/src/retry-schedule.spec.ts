import { DEFAULT_WEBHOOK_SCHEDULE, parseRetrySchedule } from '@gateway/common';
import { retryDelayMs } from './retry-schedule';

const HOUR = 3_600_000;

describe('retryDelayMs', () => {
  const schedule = parseRetrySchedule(DEFAULT_WEBHOOK_SCHEDULE);

  it('jitters each delay by at most ±20%', () => {
    expect(retryDelayMs(schedule, 1, () => 0)).toBe(4_000);
    expect(retryDelayMs(schedule, 1, () => 0.5)).toBe(5_000);
    expect(retryDelayMs(schedule, 1, () => 0.999999)).toBe(6_000);
    for (let i = 0; i < 1_000; i++) {
      const delay = retryDelayMs(schedule, 9);
      expect(delay).toBeGreaterThanOrEqual(0.8 * 24 * HOUR);
      expect(delay).toBeLessThanOrEqual(1.2 * 24 * HOUR);
    }
  });

  it('keeps an immediate attempt immediate', () => {
    expect(retryDelayMs(schedule, 0, () => 0)).toBe(0);
    expect(retryDelayMs(schedule, 0, () => 0.999)).toBe(0);
  });

  it('is never negative, whatever the random source returns', () => {
    expect(retryDelayMs([1_000], 0, () => -10)).toBe(0);
  });

  it('refuses an attempt outside the schedule', () => {
    expect(() => retryDelayMs(schedule, 10)).toThrow(RangeError);
    expect(() => retryDelayMs(schedule, -1)).toThrow('attempt -1 is outside the 10-attempt webhook schedule');
    expect(() => retryDelayMs(schedule, 1.5)).toThrow(RangeError);
  });
});
