/**
 * WEBHOOK_RETRY_SCHEDULE's one grammar: the configuration validates with this parser and keeps what it returns
 * (AppConfig.webhookSchedule), so what start-up accepts is exactly what the webhook jobs and the worker use.
 * Entry i is the wait before attempt i, counted from the previous attempt (entry 0 from the task's end).
 */

/** When webhook attempts happen unless WEBHOOK_RETRY_SCHEDULE says otherwise: 10 attempts over about 3 days (docs/contracts.md). */
export const DEFAULT_WEBHOOK_SCHEDULE = '0,5s,5m,30m,2h,5h,10h,14h,20h,24h';

/** The longest schedule accepted (docs/contracts.md). */
const MAX_WEBHOOK_ATTEMPTS = 20;

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

/** The schedule, or the problem start-up reports under the setting's name. */
export function readWebhookSchedule(text: string): { schedule: number[]; problems: string[] } {
  try {
    return { schedule: parseRetrySchedule(text), problems: [] };
  } catch (error) {
    return { schedule: [], problems: [`WEBHOOK_RETRY_SCHEDULE: ${(error as Error).message}`] };
  }
}
