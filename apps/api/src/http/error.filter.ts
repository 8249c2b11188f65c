import { GatewayError, LOGGER, toEnvelope } from '@gateway/common';
import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Inject } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Logger } from 'pino';

/** Turns every failure into the error envelope of docs/contracts.md; unknown errors become a logged 500 without internals. */
@Catch()
export class ErrorEnvelopeFilter implements ExceptionFilter {
  constructor(@Inject(LOGGER) private readonly logger: Logger) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const request = http.getRequest<FastifyRequest>();
    const reply = http.getResponse<FastifyReply>();
    const error = toGatewayError(exception);
    if (error.status >= 500 && error.code === 'InternalError') {
      this.logger.error(
        { reqId: request.id, err: (exception as Error)?.message, stack: (exception as Error)?.stack },
        'unhandled error',
      );
    }
    if (error.headers) reply.headers(error.headers);
    reply.status(error.status).send(toEnvelope(error, request.id));
  }
}

/** Maps framework errors (routing, body parsing, limits) onto the gateway's codes. */
function toGatewayError(exception: unknown): GatewayError {
  if (exception instanceof GatewayError) return exception;
  if (exception instanceof HttpException) {
    const status = exception.getStatus();
    if (status === 404) return new GatewayError('NotFound', 'no such route; see GET /v1/models and the API reference');
    if (status === 413) return new GatewayError('PayloadTooLarge', 'the request body is too large');
    if (status === 415) return notJson();
    if (status < 500) return new GatewayError('InvalidParameter', exception.message);
  }
  const fastifyError = exception as { statusCode?: number; code?: string; message?: string };
  if (fastifyError?.statusCode === 413 || fastifyError?.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
    return new GatewayError('PayloadTooLarge', 'the request body is too large');
  }
  if (fastifyError?.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') return notJson();
  if (fastifyError?.statusCode === 400) {
    return new GatewayError(
      'InvalidParameter',
      `the request body is not valid JSON: ${fastifyError.message ?? ''}`.trim(),
    );
  }
  return new GatewayError('InternalError', 'an internal error occurred; quote the request id when reporting it');
}

/** Every body is JSON (http/json-parser.ts): a form, text or multipart is refused before it is read. */
function notJson(): GatewayError {
  return new GatewayError('InvalidParameter', 'send the body as application/json', { param: 'Content-Type' });
}
