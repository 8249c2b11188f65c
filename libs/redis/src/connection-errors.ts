import type { Logger } from 'pino';

/** While a connection keeps failing, one line per this long at most. */
export const CONNECTION_ERROR_REPORT_MS = 60_000;

/** What reports errors: an ioredis connection, or a BullMQ queue, which passes on its connection's. */
interface ErrorEmitter {
  on(event: 'error', listener: (error: Error) => void): unknown;
}

/**
 * Logs a Redis connection's errors as JSON lines: the first at once, then at most one a minute with how many were
 * left out, for as long as it fails. Without a listener, ioredis prints every reconnect attempt's error with its
 * stack on stderr ("[ioredis] Unhandled error event"), and a BullMQ queue prints it with console.error.
 */
export function reportConnectionErrors(
  emitter: ErrorEmitter,
  connection: string,
  logger: Logger,
  now: () => number = Date.now,
): void {
  let reportedAt = -Infinity;
  let leftOut = 0;
  emitter.on('error', (error: Error) => {
    const at = now();
    if (at - reportedAt < CONNECTION_ERROR_REPORT_MS) {
      leftOut += 1;
      return;
    }
    logger.warn({ connection, err: error.message, ...(leftOut > 0 ? { leftOut } : {}) }, 'redis connection error');
    reportedAt = at;
    leftOut = 0;
  });
}
