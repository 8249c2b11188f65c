import { DEFAULT_WEBHOOK_SCHEDULE, parseRetrySchedule } from './webhook-schedule';

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
