// When a presigned URL stops working, as far as its query shows it: the forms of the object stores a caller's image
// most often sits in. A URL naming none is taken to last.

/** Query parameter names are matched without regard to case; object stores differ in how they spell them. */
function queryOf(url: URL): Map<string, string> {
  const query = new Map<string, string>();
  for (const [name, value] of url.searchParams) query.set(name.toLowerCase(), value);
  return query;
}

/** A signing time with a lifetime in seconds: S3 (X-Amz-Date, X-Amz-Expires), OSS V4 (x-oss-*), GCS (X-Goog-*). */
const SIGNED_AT_PLUS_SECONDS = [
  ['x-amz-date', 'x-amz-expires'],
  ['x-oss-date', 'x-oss-expires'],
  ['x-goog-date', 'x-goog-expires'],
] as const;

/**
 * The epoch milliseconds at which the URL's signature expires; undefined when its query names no expiry. An
 * expiry that is named but cannot be read is 0 (already past): a URL whose lifetime is unknown is not relied on.
 * - OSS (V1) and CloudFront: `Expires=<epoch seconds>`
 * - S3 / OSS V4 / GCS: `X-Amz-Date=<yyyymmddThhmmssZ>` plus `X-Amz-Expires=<seconds>` (and their x-oss-, x-goog- kin)
 * - Azure SAS: `se=<ISO 8601>`, with `sig`
 * Several named: the earliest.
 */
export function signedUrlExpiry(url: URL): number | undefined {
  const query = queryOf(url);
  const expiries: number[] = [];
  const expires = query.get('expires');
  if (expires !== undefined) expiries.push(/^\d+$/.test(expires) ? Number(expires) * 1000 : 0);
  for (const [dateName, secondsName] of SIGNED_AT_PLUS_SECONDS) {
    const date = query.get(dateName);
    const seconds = query.get(secondsName);
    if (date === undefined && seconds === undefined) continue;
    const signedAt = date === undefined ? NaN : compactIsoTime(date);
    expiries.push(
      seconds !== undefined && /^\d+$/.test(seconds) && signedAt > 0 ? signedAt + Number(seconds) * 1000 : 0,
    );
  }
  const azureEnd = query.has('sig') ? query.get('se') : undefined;
  if (azureEnd !== undefined) {
    const end = Date.parse(azureEnd);
    expiries.push(Number.isFinite(end) ? end : 0);
  }
  return expiries.length > 0 ? Math.min(...expiries) : undefined;
}

/** `20250101T120000Z` as epoch milliseconds; NaN when it is not that form. */
function compactIsoTime(value: string): number {
  const match = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(value);
  if (!match) return NaN;
  const [, year, month, day, hour, minute, second] = match.map(Number);
  return Date.UTC(year, month - 1, day, hour, minute, second);
}
