/** A record parsed from JSON has its dates as ISO strings: turns the named fields back into Dates. */
export function reviveDates<T>(record: T, ...fields: (keyof T & string)[]): T {
  const revived = record as Record<string, unknown>;
  for (const field of fields) {
    if (typeof revived[field] === 'string') revived[field] = new Date(revived[field]);
  }
  return record;
}
