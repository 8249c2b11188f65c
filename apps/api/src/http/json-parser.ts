import { GatewayError } from '@gateway/common';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { IncomingMessage } from 'node:http';
import { JsonDepthScan } from './json-depth-scan';
import { badTextError, textProblemPath } from './text-problems';

/**
 * The api's only body parser: JSON, for every route. Anything else (a form, text, multipart) is refused with 400
 * before a byte of it is read, so a cross-site form cannot post to the console. The body is read from the socket here
 * rather than by Fastify so that, while it arrives, it is checked for depth (a 4 MB body nested 2 million deep once
 * stalled the api for 2.3 s inside JSON.parse) and against a deadline (headers sent, then no body), and refused at the
 * first byte past either.
 */
export function installJsonParser(fastify: FastifyInstance, bodyTimeoutMs: number): void {
  // Fastify's own text/plain and JSON parsers, and any a framework added, go: an unknown type is then
  // FST_ERR_CTP_INVALID_MEDIA_TYPE, which the error filter answers 400.
  fastify.removeAllContentTypeParsers();
  const parseJson = fastify.getDefaultJsonParser('error', 'error');
  fastify.addContentTypeParser('application/json', (request, payload, done) => {
    readBody(request, payload, bodyTimeoutMs, (error, body) => {
      if (error || !body) return done(error ?? null);
      // Signed requests (HMAC) cover the exact body bytes.
      request.rawBody = body;
      void parseJson(request, body.toString('utf8'), (parseError, value) => {
        if (parseError) return done(parseError);
        done(invalidText(body, value) ?? null, value);
      });
    });
  });
}

declare module 'fastify' {
  interface FastifyRequest {
    rawBody?: Buffer;
  }
}

/** Reads the body under the route's size limit, the nesting limit and the deadline; answers the first problem. */
function readBody(
  request: FastifyRequest,
  payload: IncomingMessage,
  timeoutMs: number,
  done: (error: Error | null, body?: Buffer) => void,
): void {
  const limit = request.routeOptions.bodyLimit ?? Infinity;
  if (Number(request.headers['content-length']) > limit) return done(tooLarge());
  const chunks: Buffer[] = [];
  const scan = new JsonDepthScan();
  let received = 0;
  let settled = false;
  const settle = (error: Error | null, body?: Buffer) => {
    if (settled) return;
    settled = true;
    clearTimeout(timer);
    payload.removeListener('data', onData);
    payload.removeListener('end', onEnd);
    payload.removeListener('error', onError);
    // What is left of a refused body is read and dropped, not kept.
    if (error) payload.resume();
    done(error, body);
  };
  const timer = setTimeout(
    () =>
      settle(
        new GatewayError('RequestTimeout', `the request body did not arrive within ${timeoutMs} ms`, {
          headers: { connection: 'close' },
        }),
      ),
    timeoutMs,
  );
  const onData = (chunk: Buffer) => {
    received += chunk.length;
    if (received > limit) return settle(tooLarge());
    if (!scan.feed(chunk)) {
      return settle(
        new GatewayError('InvalidParameter', `the request body nests deeper than ${JsonDepthScan.MAX_DEPTH} levels`),
      );
    }
    chunks.push(chunk);
  };
  const onEnd = () => settle(null, Buffer.concat(chunks, received));
  const onError = (error: Error) => settle(error);
  payload.on('data', onData);
  payload.on('end', onEnd);
  payload.on('error', onError);
}

function tooLarge(): GatewayError {
  return new GatewayError('PayloadTooLarge', 'the request body is too large', { headers: { connection: 'close' } });
}

/** U+0000 or a lone surrogate anywhere in the body: both can only arrive as \u escapes, so most bodies skip the walk. */
function invalidText(body: Buffer, value: unknown): GatewayError | undefined {
  if (body.indexOf('\\u') === -1) return undefined;
  const path = textProblemPath(value);
  return path === undefined ? undefined : badTextError(path);
}
