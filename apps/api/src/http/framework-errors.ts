import { GatewayError, newId, toEnvelope } from '@gateway/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';

/**
 * Answers in the error envelope what Fastify and Node refuse before a route runs, instead of their own bodies:
 * a malformed URL or an over-long path parameter (Fastify's router), and a request Node's parser gives up on
 * (headers too large, headers not complete in time, bytes that are not HTTP). None of them repeats the path.
 */
export function answerFrameworkError(error: Error & { code?: string }, request: FastifyRequest, reply: FastifyReply) {
  const gatewayError =
    error.code === 'FST_ERR_MAX_PARAM_LENGTH'
      ? new GatewayError('UriTooLong', 'a path segment of the URL is too long')
      : new GatewayError('InvalidParameter', 'the URL is not valid; percent-encode its path');
  // Before the request hooks, which set it on every other answer.
  void reply.status(gatewayError.status).header('x-request-id', request.id).send(toEnvelope(gatewayError, request.id));
}

/** Node's `clientError`: the request never became one, so the answer is written on the socket, then closed. */
export function answerClientError(error: Error & { code?: string }, socket: Socket): void {
  if (error.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  const gatewayError = clientGatewayError(error.code);
  const requestId = newId('req');
  const body = JSON.stringify(toEnvelope(gatewayError, requestId));
  socket.end(
    `HTTP/1.1 ${gatewayError.status} ${STATUS_CODES[gatewayError.status]}\r\n` +
      'Content-Type: application/json; charset=utf-8\r\n' +
      `X-Request-Id: ${requestId}\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\n` +
      'Connection: close\r\n\r\n' +
      body,
  );
}

function clientGatewayError(code: string | undefined): GatewayError {
  switch (code) {
    case 'HPE_HEADER_OVERFLOW':
      return new GatewayError('HeadersTooLarge', 'the request line and headers are too large; send them under 16 KB');
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return new GatewayError('RequestTimeout', 'the request headers did not arrive in time');
    default:
      return new GatewayError('InvalidParameter', 'the request is not valid HTTP/1.1');
  }
}
