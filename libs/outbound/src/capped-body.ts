import { Dispatcher } from 'undici';

export type ResponseBody = Dispatcher.ResponseData['body'];

export interface CappedBody {
  /** What arrived, never more than maxBytes. */
  bytes: Buffer;
  /** The body went on past maxBytes; the rest was never downloaded. */
  truncated: boolean;
  /** Why reading stopped before the end (timeout, reset); `bytes` holds what arrived until then. */
  error?: unknown;
}

/**
 * Reads a response body up to `maxBytes` and then closes the connection, so a server the caller chose cannot make
 * the gateway download an unbounded answer. Never throws: a read error comes back with the bytes received before it.
 */
export async function readCappedBody(body: ResponseBody, maxBytes: number): Promise<CappedBody> {
  const chunks: Buffer[] = [];
  let received = 0;
  // Stopping early destroys the body, which would otherwise emit an unhandled abort error.
  body.on('error', () => undefined);
  try {
    for await (const chunk of body) {
      const bytes = chunk as Buffer;
      if (received + bytes.length > maxBytes) {
        chunks.push(bytes.subarray(0, maxBytes - received));
        return { bytes: Buffer.concat(chunks, maxBytes), truncated: true };
      }
      chunks.push(bytes);
      received += bytes.length;
    }
    return { bytes: Buffer.concat(chunks, received), truncated: false };
  } catch (error) {
    return { bytes: Buffer.concat(chunks, received), truncated: false, error };
  } finally {
    // A body left unread holds its connection.
    body.destroy();
  }
}

/** A whole body, or why there is none: too large (by its Content-Length, or once past the cap) or a failed read. */
export type BodyWithin = { bytes: Buffer } | { tooLarge: true } | { error: unknown };

/**
 * Reads a whole answer that must not exceed `maxBytes`: refused unread when its Content-Length says it is larger,
 * and cut off as soon as it goes past the cap otherwise. The caller words the failure.
 */
export async function readBodyWithin(response: Dispatcher.ResponseData, maxBytes: number): Promise<BodyWithin> {
  if (Number(response.headers['content-length']) > maxBytes) {
    discardBody(response.body);
    return { tooLarge: true };
  }
  const read = await readCappedBody(response.body, maxBytes);
  if (read.error) return { error: read.error };
  return read.truncated ? { tooLarge: true } : { bytes: read.bytes };
}

/** Drops a body we will not read, closing its connection; destroy() alone would emit an unhandled abort error. */
export function discardBody(body: ResponseBody): void {
  body.on('error', () => undefined).destroy();
}
