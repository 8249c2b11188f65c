import { GatewayError, UTC_DAY_PATTERN, utcDay, utcDaysBefore } from '@gateway/common';
import { FeedQuery } from '@gateway/db';

const MAX_RANGE_DAYS = 366;
const DEFAULT_LIMIT = 50;
const MAX_LIMIT = 200;

/** `from`..`to` as UTC days, defaulting to the 30 days up to today; at most a year. */
export function dayRange(from?: string, to?: string): { from: string; to: string } {
  // Each is read before the default of `from` is counted back from `to`, which a day like 0000-00-00 would break.
  const until = to === undefined ? utcDay() : readDay('to', to);
  const since = from === undefined ? utcDaysBefore(until, 29) : readDay('from', from);
  const days = (Date.parse(until) - Date.parse(since)) / 86_400_000;
  if (days < 0 || days >= MAX_RANGE_DAYS) {
    throw new GatewayError(
      'InvalidParameter',
      `from must not be after to, and the range is at most ${MAX_RANGE_DAYS} days`,
      { param: 'from' },
    );
  }
  return { from: since, to: until };
}

/** A calendar day as written, YYYY-MM-DD: not 2025-02-30, which Date.parse would read as March 2. */
function readDay(param: string, value: string): string {
  const at = Date.parse(value);
  if (!UTC_DAY_PATTERN.test(value) || Number.isNaN(at) || utcDay(at) !== value)
    throw new GatewayError('InvalidParameter', `${param} must be a UTC day, YYYY-MM-DD`, { param });
  return value;
}

/** The query of a newest-first console listing: a day range, a page size and the cursor of the previous page. */
export function listingQuery(query: { from?: string; to?: string; limit?: string; cursor?: string }): FeedQuery {
  const limit = query.limit === undefined ? DEFAULT_LIMIT : Number(query.limit);
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT)
    throw new GatewayError('InvalidParameter', `limit must be a whole number from 1 to ${MAX_LIMIT}`, {
      param: 'limit',
    });
  if (query.cursor !== undefined && (query.cursor.length === 0 || query.cursor.length > 200))
    throw new GatewayError('InvalidParameter', 'cursor must be the `next` of a previous page', { param: 'cursor' });
  return { ...dayRange(query.from, query.to), limit, cursor: query.cursor };
}
