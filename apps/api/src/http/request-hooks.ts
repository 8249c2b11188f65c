import { GatewayError } from '@gateway/common';
import { MetricsService } from '@gateway/metrics';
import type { AuthenticatedRequest } from '@gateway/tenancy';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Logger } from 'pino';
import { BurstPacer } from './burst-pacer';
import { badTextError, textProblemPath } from './text-problems';

declare module 'fastify' {
  interface FastifyRequest {
    /** performance.now() at accept, and the part of the request spent inside provider calls. */
    gatewayTiming: { startedAt: number; providerMs: number };
    taskId?: string;
  }
}

/**
 * Per-request plumbing on the Fastify instance: X-Request-Id, bursts of new /v1 requests spread over turns of the
 * event loop (BurstPacer), X-Gateway-Overhead-Ms on /v1 responses, one JSON log line and the HTTP metrics per request.
 */
export function installRequestHooks(fastify: FastifyInstance, metrics: MetricsService, logger: Logger): void {
  // Set by the first hook of every request; declared here so every request object has the same shape.
  fastify.decorateRequest('gatewayTiming');
  fastify.decorateRequest('taskId', undefined);
  const pacer = new BurstPacer();
  fastify.addHook('onRequest', (request, reply, done) => {
    request.gatewayTiming = { startedAt: performance.now(), providerMs: 0 };
    reply.header('x-request-id', request.id);
    const badHeader = CREDENTIAL_HEADERS.find((name) => !isPrintableAscii(request.headers[name]));
    if (badHeader) {
      return done(
        new GatewayError('InvalidParameter', `the ${badHeader} header must be printable ASCII`, { param: badHeader }),
      );
    }
    // /health and the console stay out of the queue: a probe is answered in the turn that reads it.
    if (request.url.startsWith('/v1/')) pacer.run(done);
    else done();
  });
  // Percent-encoding is the only way U+0000 or a lone surrogate reaches an id or a query parameter (the body's are
  // refused by json-parser.ts).
  fastify.addHook('preValidation', (request, _reply, done) => {
    if (!request.url.includes('%')) return done();
    const param = textProblemPath(request.params) ?? textProblemPath(request.query);
    done(param === undefined ? undefined : badTextError(param));
  });
  fastify.addHook('onSend', (request, reply, payload, done) => {
    if (request.url.startsWith('/v1/')) reply.header('x-gateway-overhead-ms', overheadMs(request).toFixed(2));
    done(null, payload);
  });
  fastify.addHook('onResponse', (request, reply, done) => {
    const route = request.routeOptions.url ?? 'unmatched';
    const seconds = (performance.now() - request.gatewayTiming.startedAt) / 1000;
    const labels = { method: request.method, route, status_code: String(reply.statusCode) };
    metrics.httpRequests.inc(labels);
    metrics.httpDuration.observe(labels, seconds);
    if (route.startsWith('/v1/')) {
      metrics.overhead.observe({ route }, overheadMs(request) / 1000);
      // The application whose key (or signature) the call named, even when it was then refused.
      const { principal, callerAppId } = request as Partial<AuthenticatedRequest>;
      const appId = principal?.appId ?? callerAppId;
      if (appId) metrics.appRequests.inc(appId);
    }
    logger.info(
      {
        reqId: request.id,
        taskId: request.taskId,
        traceId: request.trace?.traceId,
        method: request.method,
        url: loggableUrl(request.url),
        status: reply.statusCode,
        ms: Math.round(seconds * 1000),
      },
      'request',
    );
    done();
  });
}

/** Headers compared byte for byte with a stored secret: anything but printable ASCII cannot match and is refused. */
const CREDENTIAL_HEADERS = ['authorization', 'x-csrf-token'] as const;

function isPrintableAscii(value: string | string[] | undefined): boolean {
  return typeof value !== 'string' || /^[\x20-\x7e]*$/.test(value);
}

function overheadMs(request: FastifyRequest): number {
  const { startedAt, providerMs } = request.gatewayTiming;
  return Math.max(0, performance.now() - startedAt - providerMs);
}

/** A signed file URL is a credential until it expires: its signature stays out of the logs. */
function loggableUrl(url: string): string {
  return url.includes('sig=') ? url.replace(/([?&]sig=)[^&]*/, '$1[redacted]') : url;
}
