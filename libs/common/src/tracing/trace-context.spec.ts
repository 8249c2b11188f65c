import { context, trace } from '@opentelemetry/api';
import { contextOf, inClientSpan, traceIdOf } from './trace-context';
import { Tracing } from './tracing';

const TRACE_ID = '0af7651916cd43dd8448eb211c80319c';

describe('trace context', () => {
  it("reads a caller's valid traceparent, and nothing from an invalid or absent one", () => {
    expect(traceIdOf(`00-${TRACE_ID}-b7ad6b7169203331-01`)).toBe(TRACE_ID);
    for (const bad of [
      undefined,
      ['a', 'b'],
      'garbage',
      `00-${'0'.repeat(32)}-b7ad6b7169203331-01`,
      `00-${TRACE_ID}-${'0'.repeat(16)}-01`,
      `ff-${TRACE_ID}-b7ad6b7169203331-01`,
    ])
      expect(traceIdOf(bad)).toBeUndefined();
  });

  it('continues a valid traceparent and starts from the root otherwise', () => {
    expect(trace.getSpanContext(contextOf(`00-${TRACE_ID}-b7ad6b7169203331-01`))).toMatchObject({
      traceId: TRACE_ID,
      spanId: 'b7ad6b7169203331',
      isRemote: true,
    });
    expect(trace.getSpanContext(contextOf('00-nonsense'))).toBeUndefined();
    expect(trace.getSpanContext(contextOf(undefined))).toBeUndefined();
  });

  it('is off, with no tracer, unless an OTLP endpoint is configured', () => {
    expect(Tracing.fromSettings({}, 'api').enabled).toBe(false);
    expect(Tracing.fromSettings({ OTEL_SERVICE_NAME: 'gw' }, 'worker').tracer).toBeUndefined();
  });
});

describe('inClientSpan', () => {
  it('sends at once with no trace header and makes no span when nothing traces the work', async () => {
    const sent: Readonly<Record<string, string>>[] = [];
    const answer = await inClientSpan(
      { method: 'POST', url: 'http://upstream.test/v1/embeddings', peer: 'upstream' },
      (headers) => {
        sent.push(headers);
        return Promise.resolve('answer');
      },
    );
    expect([answer, sent]).toEqual(['answer', [{}]]);
    expect(trace.getSpan(context.active())).toBeUndefined();
  });
});
