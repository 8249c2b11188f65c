import { LoggerService } from '@nestjs/common';
import pino, { Logger } from 'pino';

/** Paths that must never reach a log line. */
export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers["x-signature"]',
  'headers.authorization',
  'authorization',
  'apiKey',
  '*.apiKey',
  'secretKey',
  '*.secretKey',
  'password',
  '*.password',
];

export function createLogger(level: string, service: string): Logger {
  return pino(
    {
      level,
      base: { service, pid: process.pid },
      redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    // Asynchronous writes: lines written while a write is pending go out together instead of a syscall each.
    // pino flushes the buffer when the process exits.
    pino.destination({ dest: 1, sync: false }),
  );
}

/** Routes Nest's own logging into the same JSON stream. */
export class PinoNestLogger implements LoggerService {
  constructor(private readonly logger: Logger) {}
  log(message: unknown, context?: string) { this.logger.info({ context }, String(message)); }
  error(message: unknown, trace?: string, context?: string) { this.logger.error({ context, trace }, String(message)); }
  warn(message: unknown, context?: string) { this.logger.warn({ context }, String(message)); }
  debug(message: unknown, context?: string) { this.logger.debug({ context }, String(message)); }
  verbose(message: unknown, context?: string) { this.logger.trace({ context }, String(message)); }
}
