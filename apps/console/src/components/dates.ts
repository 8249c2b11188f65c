import i18n from '../i18n';

/** UTC days as the API takes them (YYYY-MM-DD). */
export function utcDay(date = new Date()): string {
  return date.toISOString().slice(0, 10);
}

export function daysBefore(day: string, days: number): string {
  return utcDay(new Date(Date.parse(`${day}T00:00:00Z`) - days * 86_400_000));
}

/**
 * The console's one way to show a moment: date and time to the second in the language the console speaks (Intl, with
 * i18next's language), the same on every page. `null` or missing is a dash.
 */
export function formatTime(value: string | number | Date | null | undefined): string {
  if (value === null || value === undefined) return '—';
  return new Intl.DateTimeFormat(i18n.language, { dateStyle: 'medium', timeStyle: 'medium' }).format(new Date(value));
}
