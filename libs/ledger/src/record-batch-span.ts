import { contextOf, Tracing } from '@gateway/common';
import { Link, Span, trace } from '@opentelemetry/api';

/**
 * A batch of task records written together: one span linked to each traced task's span, since a span has one parent
 * and the batch serves many traces. Undefined when none of them is traced.
 */
export function recordBatchSpan(tracing: Tracing, traceparents: (string | undefined)[]): Span | undefined {
  if (!tracing.enabled) return undefined;
  const links: Link[] = [];
  for (const traceparent of traceparents) {
    const linked = traceparent ? trace.getSpanContext(contextOf(traceparent)) : undefined;
    if (linked) links.push({ context: linked });
  }
  if (links.length === 0) return undefined;
  return tracing.start('task.record', { links, attributes: { 'gateway.tasks': traceparents.length } }, undefined).span;
}
