/**
 * When webhook attempts happen: entry i is the wait before attempt i, counted from the previous attempt (entry 0 from
 * the task's end). The default is DEFAULT_WEBHOOK_SCHEDULE in the configuration (libs/common/src/config/env.ts).
 */

/** The longest schedule accepted (docs/contracts.md). */
const MAX_WEBHOOK_ATTEMPTS = 20;

/** ±20%, so receivers that come back up are not hit by every queued retry at the same instant. */
export const RETRY_JITTER = 0.2;

const UNIT_MS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 };
const ENTRY = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/;

/** Parses `0,5s,5m,2h` (units ms, s, m, h; a bare number is milliseconds) into delays in milliseconds. */
export function parseRetrySchedule(text: string): number[] {
  const entries = text.split(',').map((entry) => entry.trim());
  if (entries.length === 1 && entries[0] === '')
    throw new Error('webhook retry schedule is empty; expected e.g. "0,5s,5m,30m"');
  if (entries.length > MAX_WEBHOOK_ATTEMPTS) {
    throw new Error(
      `webhook retry schedule has ${entries.length} entries; at most ${MAX_WEBHOOK_ATTEMPTS} are allowed`,
    );
  }
  return entries.map((entry, index) => {
    const match = ENTRY.exec(entry);
    if (!match) {
      throw new Error(
        `webhook retry schedule entry ${index + 1} "${entry}" is not a delay; use a number with ms, s, m or h (e.g. 5s, 30m)`,
      );
    }
    return Math.round(Number(match[1]) * UNIT_MS[match[2] ?? 'ms']);
  });
}

/** The jittered wait before attempt `attemptIndex` (0-based); `random` returns [0, 1) like Math.random. */
export function retryDelayMs(
  schedule: readonly number[],
  attemptIndex: number,
  random: () => number = Math.random,
): number {
  if (!Number.isInteger(attemptIndex) || attemptIndex < 0 || attemptIndex >= schedule.length) {
    throw new RangeError(`attempt ${attemptIndex} is outside the ${schedule.length}-attempt webhook schedule`);
  }
  const base = schedule[attemptIndex];
  const factor = 1 - RETRY_JITTER + 2 * RETRY_JITTER * random();
  return Math.max(0, Math.round(base * factor));
}
