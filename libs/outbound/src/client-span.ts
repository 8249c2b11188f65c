import { activeTracer, traceHeadersOf } from '@gateway/common';
import { context, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';

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
