import { Logger } from 'pino';
import SHUTDOWN_DEFAULTS from '../config/shutdown-defaults.json';

/**
 * Exit code of a process that stopped waiting for its graceful close: SHUTDOWN_TIMEOUT_MS passed, or a second signal
 * asked for it. timeout(1)'s code for "ran past its time limit", apart from 1 (a crash, a failed start, an error
 * while closing) and from 128 + n (killed by signal n). A clean shutdown exits 0.
 */
export const FORCED_SHUTDOWN_EXIT_CODE: number = SHUTDOWN_DEFAULTS.forcedExitCode;

/** The signals on which a gateway process closes gracefully (its bootstrap's enableShutdownHooks), within the deadline. */
export const SHUTDOWN_SIGNALS: NodeJS.Signals[] = ['SIGTERM', 'SIGINT', 'SIGHUP'];

/**
 * A terminal's Ctrl-C reaches every process of its group and `npm start` passes a SIGTERM on as well: a signal this
 * soon after the first is the same request arriving twice, not an operator insisting.
 */
const REPEATED_SIGNAL_MS = 1_000;

export interface ShutdownDeadlineOptions {
  timeoutMs: number;
  logger: Logger;
  /** Names what has started closing and not finished, for the log line of a forced exit. */
  stillClosing: () => string[];
  /** Where signals arrive and how the process exits; the unit spec passes its own. */
  host?: Pick<NodeJS.Process, 'on' | 'exit'>;
}

/**
 * Bounds the graceful close Nest runs on a shutdown signal: from the first signal, the process exits with
 * FORCED_SHUTDOWN_EXIT_CODE after `timeoutMs`, or at once on a later signal, whatever is still closing (a job still
 * running, Redis or MongoDB not answering). Jobs still running stay active in BullMQ, not failed: their lock lapses
 * and another worker's stalled-job check takes them over, as after a crash.
 */
export function armShutdownDeadline({
  timeoutMs,
  logger,
  stillClosing,
  host = process,
}: ShutdownDeadlineOptions): void {
  let firstSignalAt: number | undefined;
  const forceExit = (reason: string) => {
    logger.fatal(
      { reason, timeoutMs, stillClosing: stillClosing() },
      'forced shutdown: exiting before closing finished',
    );
    // pino writes what it has buffered on exit.
    host.exit(FORCED_SHUTDOWN_EXIT_CODE);
  };
  const onSignal = (signal: NodeJS.Signals) => {
    if (firstSignalAt === undefined) {
      firstSignalAt = Date.now();
      logger.info({ signal, timeoutMs }, 'shutting down');
      // Not unref'd: a close stuck on a promise that nothing will settle must end here, with the forced exit code,
      // rather than with a quiet exit 0 once the event loop runs dry.
      setTimeout(() => forceExit(`still closing ${timeoutMs} ms after ${signal}`), timeoutMs);
    } else if (Date.now() - firstSignalAt >= REPEATED_SIGNAL_MS) {
      forceExit(`${signal} while closing`);
    }
  };
  for (const signal of SHUTDOWN_SIGNALS) host.on(signal, onSignal);
}
