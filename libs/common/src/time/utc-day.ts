/** A UTC calendar day, YYYY-MM-DD: the key of daily limits and roll-ups (stored as text, docs/contracts.md). */
export const UTC_DAY_PATTERN = /^\d{4}-\d{2}-\d{2}$/;

export function utcDay(at: Date | number = Date.now()): string {
  return new Date(at).toISOString().slice(0, 10);
}

/** The UTC day `days` before `day`. */
export function utcDaysBefore(day: string, days: number): string {
  return utcDay(Date.parse(day) - days * 86_400_000);
}
