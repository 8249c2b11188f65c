import { traceIdOf, traceparentOf, Tracing } from '@gateway/common';
import { Span, SpanKind, SpanStatusCode } from '@opentelemetry/api';
import type { FastifyInstance } from 'fastify';

declare module 'fastify' {
  interface FastifyRequest {
    /**
     * The /v1 request's trace: its id for the log line, and with tracing on its server span and the `traceparent`
     * naming it, which the task's job carries to the worker.
     */
    trace?: { traceId: string; span?: Span; traceparent?: string };
  }
}

/**
 * The api's part of a trace (docs/operations.md, "Tracing"). With tracing on, each /v1 request is a server span that
 * continues the caller's W3C `traceparent` (a new trace when it has none or an invalid one). With tracing off, only a
 * caller's valid `traceparent` is read, for its trace id in the request's log line; nothing else is made.
 */
export function installTraceHook(fastify: FastifyInstance, tracing: Tracing): void {
  fastify.decorateRequest('trace', undefined);
  fastify.addHook('onRequest', (request, _reply, done) => {
    if (!request.url.startsWith('/v1/')) return done();
    const traceparent = request.headers.traceparent;
    if (!tracing.enabled) {
      const traceId = traceIdOf(traceparent);
      if (traceId) request.trace = { traceId };
      return done();
    }
    const { span } = tracing.start(
      `${request.method} /v1`,
      {
        kind: SpanKind.SERVER,
        attributes: { 'http.request.method': request.method, 'gateway.request_id': request.id },
      },
      typeof traceparent === 'string' ? traceparent : undefined,
    );
    request.trace = { traceId: span.spanContext().traceId, span, traceparent: traceparentOf(span) };
    done();
  });
  fastify.addHook('onResponse', (request, reply, done) => {
    const span = request.trace?.span;
    if (span) {
      const route = request.routeOptions.url ?? 'unmatched';
      span.updateName(`${request.method} ${route}`);
      span.setAttributes({ 'http.route': route, 'http.response.status_code': reply.statusCode });
      if (request.taskId) span.setAttribute('gateway.task_id', request.taskId);
      if (reply.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
    }
    done();
  });
}
