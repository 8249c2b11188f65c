/**
 * Errors of outbound fetching. Their messages are safe to show the caller: they name only what the caller (or the
 * server it pointed at) supplied, never a resolved internal address. The api maps both to 400 InvalidImage for
 * image URLs; webhook delivery records them as a failed attempt.
 */

/** Refused by policy before any request was sent: scheme, credentials in the URL, destination address, redirects. */
export class UnsafeUrlError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UnsafeUrlError';
  }
}

/** The request was allowed but did not produce a usable body: unreachable, non-2xx, timeout, over the byte cap. */
export class FetchFailedError extends Error {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super(message, options);
    this.name = 'FetchFailedError';
  }
}
