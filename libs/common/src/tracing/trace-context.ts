import {
  Context,
  context,
  createContextKey,
  defaultTextMapGetter,
  defaultTextMapSetter,
  isSpanContextValid,
  ROOT_CONTEXT,
  Span,
  SpanKind,
  SpanStatusCode,
  trace,
  Tracer,
} from '@opentelemetry/api';
import { parseTraceParent, W3CTraceContextPropagator } from '@opentelemetry/core';

const propagator = new W3CTraceContextPropagator();
/** The tracer of the process that started a context's spans: code below it (outbound calls) has no injected Tracing. */
const TRACER = createContextKey('gateway.tracer');

/** The context a W3C `traceparent` continues (the root context when it is absent or invalid: a new trace). */
export function contextOf(traceparent: string | undefined): Context {
  if (!traceparent) return ROOT_CONTEXT;
  return propagator.extract(ROOT_CONTEXT, { traceparent }, defaultTextMapGetter);
}

/** The W3C headers (`traceparent`, and `tracestate` when there is one) that continue a context's span elsewhere. */
export function traceHeadersOf(spanContext: Context): Record<string, string> {
  const carrier: Record<string, string> = {};
  propagator.inject(spanContext, carrier, defaultTextMapSetter);
  return carrier;
}

/** The `traceparent` naming a span, as carried on a job or sent in a request's headers. */
export function traceparentOf(span: Span): string {
  return traceHeadersOf(trace.setSpan(ROOT_CONTEXT, span)).traceparent;
}

/** The trace id of a caller's `traceparent` when it is valid, without any tracing: for the api's log line. */
export function traceIdOf(traceparent: string | string[] | undefined): string | undefined {
  if (typeof traceparent !== 'string') return undefined;
  const parsed = parseTraceParent(traceparent);
  return parsed && isSpanContextValid(parsed) ? parsed.traceId : undefined;
}

export function withTracer(parent: Context, tracer: Tracer): Context {
  return parent.setValue(TRACER, tracer);
}

/** The tracer the current context's spans were started with; undefined when nothing traces this work. */
export function activeTracer(): Tracer | undefined {
  return context.active().getValue(TRACER) as Tracer | undefined;
}

/** What every log line written inside a traced task carries (pino's mixin): its trace id. */
export function activeTraceFields(): { traceId?: string } {
  const spanContext = trace.getSpanContext(context.active());
  return spanContext ? { traceId: spanContext.traceId } : {};
}

/** What an untraced call adds to its request: nothing. */
const NO_HEADERS: Readonly<Record<string, string>> = Object.freeze({});

/** Puts the status an outbound exchange was answered on its client span, if it is traced. */
export function noteResponseStatus(status: number): void {
  trace.getActiveSpan()?.setAttribute('http.response.status_code', status);
}

/** How a call ended, read from its result: the status it was answered, or why it failed without throwing. */
export type CallEnding<T> = (result: T) => { status?: number; error?: string };

/**
 * One outbound HTTP exchange as an OpenTelemetry client span, when the work that makes it is traced (a task, a
 * webhook delivery): `send` gets the `traceparent` header naming that span to add to its request, so the receiver
 * continues the trace. Untraced, `send` runs at once with no header and no span is made.
 */
export async function inClientSpan<T>(
  call: { method: string; url: string | URL; peer: 'upstream' | 'webhook' },
  send: (traceHeaders: Readonly<Record<string, string>>) => Promise<T>,
  ending?: CallEnding<T>,
): Promise<T> {
  const tracer = activeTracer();
  if (!tracer) return send(NO_HEADERS);
  const parent = context.active();
  const target = typeof call.url === 'string' ? new URL(call.url) : call.url;
  const span = tracer.startSpan(
    `${call.peer} ${call.method}`,
    {
      kind: SpanKind.CLIENT,
      // The path only: a query can hold a signature or a token.
      attributes: {
        'http.request.method': call.method,
        'server.address': target.hostname,
        'url.path': target.pathname,
        'gateway.peer': call.peer,
      },
    },
    parent,
  );
  const spanContext = trace.setSpan(parent, span);
  try {
    const result = await context.with(spanContext, () => send(traceHeadersOf(spanContext)));
    const ended = ending?.(result) ?? {};
    if (ended.status !== undefined) span.setAttribute('http.response.status_code', ended.status);
    if (ended.error !== undefined || (ended.status ?? 0) >= 400)
      span.setStatus({ code: SpanStatusCode.ERROR, message: ended.error });
    return result;
  } catch (error) {
    const status = (error as { status?: unknown }).status;
    if (typeof status === 'number') span.setAttribute('http.response.status_code', status);
    span.setStatus({ code: SpanStatusCode.ERROR, message: (error as Error).message });
    throw error;
  } finally {
    span.end();
  }
}
