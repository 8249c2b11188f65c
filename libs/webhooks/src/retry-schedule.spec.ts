import { DEFAULT_WEBHOOK_SCHEDULE } from '@gateway/common';
import { parseRetrySchedule, retryDelayMs } from './retry-schedule';

const SECOND = 1_000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

describe('parseRetrySchedule', () => {
  it('reads the default as 10 attempts over about 3 days', () => {
    const schedule = parseRetrySchedule(DEFAULT_WEBHOOK_SCHEDULE);
    expect(schedule).toEqual([
      0,
      5 * SECOND,
      5 * MINUTE,
      30 * MINUTE,
      2 * HOUR,
      5 * HOUR,
      10 * HOUR,
      14 * HOUR,
      20 * HOUR,
      24 * HOUR,
    ]);
    const total = schedule.reduce((sum, delay) => sum + delay, 0);
    expect(total / (24 * HOUR)).toBeCloseTo(3.15, 2);
  });

  it('accepts ms, s, m, h, bare milliseconds, decimals and spaces', () => {
    expect(parseRetrySchedule('250ms, 1.5s ,2m,1h, 750')).toEqual([250, 1_500, 2 * MINUTE, HOUR, 750]);
    expect(parseRetrySchedule('0')).toEqual([0]);
  });

  it('allows up to 20 attempts', () => {
    expect(parseRetrySchedule(Array(20).fill('1s').join(','))).toHaveLength(20);
    expect(() => parseRetrySchedule(Array(21).fill('1s').join(','))).toThrow(
      'webhook retry schedule has 21 entries; at most 20 are allowed',
    );
  });

  it.each([
    ['', 'webhook retry schedule is empty; expected e.g. "0,5s,5m,30m"'],
    ['  ', 'webhook retry schedule is empty; expected e.g. "0,5s,5m,30m"'],
    ['0,5x', 'webhook retry schedule entry 2 "5x" is not a delay; use a number with ms, s, m or h (e.g. 5s, 30m)'],
    ['0,,5m', 'webhook retry schedule entry 2 "" is not a delay'],
    ['-5s', 'entry 1 "-5s" is not a delay'],
    ['5 s', 'entry 1 "5 s" is not a delay'],
    ['1d', 'entry 1 "1d" is not a delay'],
    ['5S', 'entry 1 "5S" is not a delay'],
    ['0,5s,', 'entry 3 "" is not a delay'],
  ])('rejects %j', (text, message) => {
    expect(() => parseRetrySchedule(text)).toThrow(message);
  });
});

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
