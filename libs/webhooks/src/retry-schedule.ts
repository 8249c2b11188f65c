/**
 * When webhook attempts happen. The schedule itself is parsed once, with the configuration
 * (AppConfig.webhookSchedule, libs/common/src/config/webhook-schedule.ts); this adds the jitter of each wait.
 */

/** ±20%, so receivers that come back up are not hit by every queued retry at the same instant. */
export const RETRY_JITTER = 0.2;

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
