import {
  Context,
  context,
  createContextKey,
  defaultTextMapGetter,
  defaultTextMapSetter,
  isSpanContextValid,
  ROOT_CONTEXT,
  Span,
  trace,
  Tracer,
} from '@opentelemetry/api';
import { parseTraceParent, W3CTraceContextPropagator } from '@opentelemetry/core';

const propagator = new W3CTraceContextPropagator();
/** The tracer of the process that started a context's spans: code below it (libs/outbound) has no injected Tracing. */
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
