/** UTC days as the API takes them (YYYY-MM-DD). */
export function utcDay(date = new Date()): string {
  return date.toISOString().slice(0, 10);
}

export function daysBefore(day: string, days: number): string {
  return utcDay(new Date(Date.parse(`${day}T00:00:00Z`) - days * 86_400_000));
}
