/**
 * One call a task made to an upstream, kept in its task record so an operator can reconcile the gateway's records
 * with the upstream's logs and bill (docs/contracts.md, collections). Never part of an answer to the caller.
 */
export interface UpstreamAttempt {
  /** The route's key, `<upstream>:<model>`. */
  route: string;
  /** For image edits: which of the n outputs the call was for (0-based). */
  image?: number;
  /** The upstream's own id of the request, when it sent one. */
  requestId?: string;
  /** HTTP status of the answer; absent when none came. */
  status?: number;
  /** `ok`, or how the call failed: retryable, route, spent (may have been billed), request, content, internal. */
  outcome: string;
  /** The upstream's error code, e.g. Arrearage. */
  code?: string;
  ms: number;
}

/** A task records at most this many calls: retries and fallbacks of n = 6 images stay well inside it. */
export const MAX_RECORDED_UPSTREAM_ATTEMPTS = 64;
