import { createHash } from 'node:crypto';
import { GatewayError } from '@gateway/common';
import type { RawBodyRequest } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';

export type ResponseMode = 'sync' | 'async';

/** `X-Async: enable` answers 202 with the task id at once (docs/architecture.md); absent or `disable` holds the connection. */
export function responseModeOf(request: FastifyRequest): ResponseMode {
  const value = request.headers['x-async'];
  if (value === undefined || value === 'disable') return 'sync';
  if (value === 'enable') return 'async';
  throw new GatewayError('InvalidParameter', 'the X-Async header must be "enable" (or absent for a synchronous call)', {
    param: 'X-Async',
  });
}

/** Printable ASCII without spaces, as UUIDs and the keys SDKs generate are. */
const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;

export function idempotencyKeyOf(request: FastifyRequest): string | undefined {
  const value = request.headers['idempotency-key'];
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !IDEMPOTENCY_KEY.test(value)) {
    throw new GatewayError(
      'InvalidParameter',
      'Idempotency-Key must be 1 to 255 printable ASCII characters without spaces',
      { param: 'Idempotency-Key' },
    );
  }
  return value;
}

/** The same key may only repeat the same request: method, path and the exact body bytes. */
export function requestFingerprint(request: RawBodyRequest<FastifyRequest>): string {
  const hash = createHash('sha256').update(`${request.method} ${request.url}\n`);
  if (request.rawBody) hash.update(request.rawBody);
  return hash.digest('base64url');
}
