import { ERROR_CODES, ErrorCode } from './error-codes';

export interface GatewayErrorOptions {
  param?: string;
  /** Extra top-level fields of the envelope, e.g. `task_id` on a 504. */
  details?: Record<string, unknown>;
  headers?: Record<string, string>;
  cause?: unknown;
}

/** The one domain error: a code of docs/contracts.md, its status, and what the client needs to act on it. */
export class GatewayError extends Error {
  readonly status: number;
  readonly type: string;
  readonly param?: string;
  readonly details?: Record<string, unknown>;
  readonly headers?: Record<string, string>;

  constructor(
    readonly code: ErrorCode,
    message: string,
    options: GatewayErrorOptions = {},
  ) {
    super(message, { cause: options.cause });
    this.name = 'GatewayError';
    this.status = ERROR_CODES[code].status;
    this.type = ERROR_CODES[code].type;
    this.param = options.param;
    this.details = options.details;
    this.headers = options.headers;
  }

  /** The serialisable form carried through queues and stored on tasks. */
  toJSON(): SerializedError {
    const retryAfter = Number(this.headers?.['retry-after']);
    return {
      status: this.status,
      code: this.code,
      message: this.message,
      param: this.param,
      details: this.details,
      // The one header a worker's failure carries to the api's answer (an exhausted upstream's Retry-After).
      ...(Number.isFinite(retryAfter) ? { retryAfter } : {}),
    };
  }

  static from(serialized: SerializedError): GatewayError {
    const code = serialized.code in ERROR_CODES ? (serialized.code as ErrorCode) : 'InternalError';
    return new GatewayError(code, serialized.message, {
      param: serialized.param,
      details: serialized.details,
      headers: serialized.retryAfter === undefined ? undefined : { 'retry-after': String(serialized.retryAfter) },
    });
  }
}

export interface SerializedError {
  status: number;
  code: string;
  message: string;
  param?: string;
  details?: Record<string, unknown>;
  /** Seconds, answered as the Retry-After header. */
  retryAfter?: number;
}

export interface ErrorEnvelope {
  error: { code: string; message: string; param: string | null; type: string };
  request_id: string;
  [extra: string]: unknown;
}

export function toEnvelope(error: GatewayError, requestId: string): ErrorEnvelope {
  return {
    error: { code: error.code, message: error.message, param: error.param ?? null, type: error.type },
    request_id: requestId,
    ...error.details,
  };
}
