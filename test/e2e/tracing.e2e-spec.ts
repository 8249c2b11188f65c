import { LOGGER } from '@gateway/common';
import pino, { Logger } from 'pino';
import { OpenAiFake } from '../fakes/openai-fake';
import {
  createApplication,
  RunningApi,
  RunningWorker,
  startApi,
  startWorker,
  testEnv,
  waitFor,
} from '../helpers/gateway';
import { OtlpReceiver, ReceivedSpan } from '../helpers/otlp-receiver';
import { WebhookReceiver } from '../helpers/webhook-receiver';

const SERVER = 2;
const CLIENT = 3;
const CONSUMER = 5;

/** A caller's W3C traceparent: version 00, its trace, its span, sampled. */
const callerTrace = (traceId: string, spanId: string) => `00-${traceId}-${spanId}-01`;

/**
 * docs/operations.md, "Tracing": with OTEL_EXPORTER_OTLP_ENDPOINT set, a request's trace runs from the api through
 * the BullMQ job to the worker, its upstream call and its webhook, and reaches an OTLP/HTTP collector as one trace.
 */
describe('tracing with OpenTelemetry', () => {
  const upstream = new OpenAiFake({ delayMs: 0 });
  const collector = new OtlpReceiver();
  const callbacks = new WebhookReceiver('127.0.0.2');
  let api: RunningApi;
  let worker: RunningWorker;
  let apiKey: string;
  let apiLines: string[];
  let workerLines: string[];

  beforeAll(async () => {
    await Promise.all([upstream.start(), collector.start(), callbacks.start()]);
    const env = testEnv({
      UPSTREAM_PRIMARY_BASE_URL: upstream.baseUrl,
      OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
      OUTBOUND_ALLOW_CIDRS: '127.0.0.2/32',
    });
    [api, worker] = await Promise.all([startApi(env), startWorker(env)]);
    ({ apiKey } = await createApplication(api, 'traced', { callbackUrl: callbacks.url }));
  });

  afterAll(async () => {
    await Promise.all([api?.close(), worker?.close()]);
    await Promise.all([upstream.stop(), collector.stop(), callbacks.stop()]);
  });

  beforeEach(() => {
    upstream.reset();
    apiLines = captureLines(api.app.get<Logger>(LOGGER));
    workerLines = captureLines(worker.app.get<Logger>(LOGGER));
  });
  afterEach(() => {
    jest.restoreAllMocks();
    for (const { app } of [api, worker]) app.get<Logger>(LOGGER).level = 'silent';
  });

  const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${api.url}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });

  /** The trace's spans once those named have all arrived. */
  const spansOf = (traceId: string, names: string[]) =>
    waitFor(
      () => collector.trace(traceId),
      (spans) => names.every((name) => spans.some((span) => span.name === name)),
      `spans ${names.join(', ')} of trace ${traceId}`,
    );
  const named = (spans: ReceivedSpan[], name: string) => {
    const found = spans.filter((span) => span.name === name);
    expect(found).toHaveLength(1);
    return found[0];
  };

  it("continues a caller's trace through a synchronous embeddings call: api, queue wait, worker, upstream", async () => {
    const traceId = '0af7651916cd43dd8448eb211c80319c';
    const response = await post(
      '/v1/embeddings',
      { model: 'openai-embedding', input: ['traced'] },
      { traceparent: callerTrace(traceId, 'b7ad6b7169203331') },
    );
    expect(response.status).toBe(200);
    const taskId = response.headers.get('x-task-id');

    const spans = await spansOf(traceId, [
      'POST /v1/embeddings',
      'embeddings queue wait',
      'embeddings task',
      'task.execute',
      'upstream POST',
      'task.settle_limits',
      'task.deliver_outcome',
    ]);
    const request = named(spans, 'POST /v1/embeddings');
    const wait = named(spans, 'embeddings queue wait');
    const task = named(spans, 'embeddings task');
    const execute = named(spans, 'task.execute');
    const call = named(spans, 'upstream POST');
    expect(request).toMatchObject({
      service: 'model-gateway-api',
      kind: SERVER,
      parentSpanId: 'b7ad6b7169203331',
      attributes: expect.objectContaining({ 'http.response.status_code': 200, 'gateway.task_id': taskId }),
    });
    expect(wait).toMatchObject({ service: 'model-gateway-worker', parentSpanId: request.spanId });
    expect(task).toMatchObject({ kind: CONSUMER, parentSpanId: wait.spanId });
    expect(execute.parentSpanId).toBe(task.spanId);
    expect(call).toMatchObject({
      kind: CLIENT,
      parentSpanId: execute.spanId,
      attributes: expect.objectContaining({ 'url.path': '/v1/embeddings', 'http.response.status_code': 200 }),
    });
    for (const stage of ['task.settle_limits', 'task.deliver_outcome'])
      expect(named(spans, stage).parentSpanId).toBe(task.spanId);
    // The queue wait runs from the enqueue to the pick-up, where the task starts.
    expect(BigInt(wait.endTimeUnixNano)).toBeLessThanOrEqual(BigInt(task.startTimeUnixNano));
    expect(BigInt(wait.startTimeUnixNano)).toBeLessThanOrEqual(BigInt(wait.endTimeUnixNano));

    // The upstream was told of the client span, in the caller's trace.
    expect(upstream.calls).toHaveLength(1);
    expect(upstream.calls[0].headers.traceparent).toBe(`00-${traceId}-${call.spanId}-01`);

    // The record is written in a batch of its own, linked to the task.
    const record = await waitFor(
      () =>
        collector.spans.find((span) => span.name === 'task.record' && span.links.some((l) => l.traceId === traceId)),
      Boolean,
      'the record batch span',
    );
    expect(record!.links).toContainEqual(expect.objectContaining({ traceId, spanId: task.spanId }));
  });

  it('starts a new trace for an asynchronous chat call with an invalid traceparent, webhook delivery included', async () => {
    const bogus = '00-00000000000000000000000000000000-b7ad6b7169203331-01';
    const response = await post(
      '/v1/chat/completions',
      { model: 'x-chat', messages: [{ role: 'user', content: 'hello' }] },
      { 'x-async': 'enable', traceparent: bogus },
    );
    expect(response.status).toBe(202);
    const taskId = response.headers.get('x-task-id')!;
    const request = await waitFor(
      () => collector.spans.find((span) => span.attributes['gateway.task_id'] === taskId && span.kind === SERVER),
      Boolean,
      'the api span of the task',
    );
    const traceId = request!.traceId;
    expect(traceId).not.toBe('00000000000000000000000000000000');
    expect(request!.parentSpanId).toBeUndefined();

    const spans = await spansOf(traceId, [
      'chat queue wait',
      'chat task',
      'task.execute',
      'upstream POST',
      'webhook POST',
    ]);
    const wait = named(spans, 'chat queue wait');
    const task = named(spans, 'chat task');
    const call = named(spans, 'upstream POST');
    const delivery = named(spans, 'webhook POST');
    expect(wait.parentSpanId).toBe(request!.spanId);
    expect(task.parentSpanId).toBe(wait.spanId);
    expect(call.parentSpanId).toBe(named(spans, 'task.execute').spanId);
    expect(delivery).toMatchObject({
      service: 'model-gateway-worker',
      kind: CLIENT,
      parentSpanId: task.spanId,
      attributes: expect.objectContaining({ 'gateway.peer': 'webhook', 'http.response.status_code': 200 }),
    });
    expect(upstream.calls[0].headers.traceparent).toBe(`00-${traceId}-${call.spanId}-01`);
    const received = await waitFor(
      () => callbacks.received.find((hook) => hook.body.data.task_id === taskId),
      Boolean,
      'the webhook',
    );
    expect(received?.headers.traceparent).toBe(`00-${traceId}-${delivery.spanId}-01`);
    expect(collector.paths).toContain('POST /v1/traces application/json');
  });

  it("names the trace in the api's and the worker's log lines of the request", async () => {
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    upstream.failNext({ times: 1, status: 400 });
    const response = await post(
      '/v1/chat/completions',
      { model: 'x-chat', messages: [{ role: 'user', content: 'refused' }] },
      { traceparent: callerTrace(traceId, '00f067aa0ba902b7') },
    );
    expect(response.status).toBe(400);
    const taskId = response.headers.get('x-task-id');
    const linesOf = (lines: string[]) =>
      lines.map((line) => JSON.parse(line) as Record<string, unknown>).filter((line) => line.taskId === taskId);

    const apiLine = await waitFor(
      () => linesOf(apiLines),
      (found) => found.length > 0,
      'the request log line',
    );
    expect(apiLine[0]).toMatchObject({ msg: 'request', status: 400, traceId });
    const workerLine = await waitFor(
      () => linesOf(workerLines),
      (found) => found.length > 0,
      "the worker's line",
    );
    expect(workerLine[0]).toMatchObject({ msg: 'upstream rejected the request', traceId });
  });
});

/**
 * The lines a logger writes from now on, as its destination receives them, kept instead of printed; at `info`, the
 * level the suites' `silent` hides.
 */
function captureLines(logger: Logger): string[] {
  const lines: string[] = [];
  logger.level = 'info';
  const destination = (logger as unknown as Record<symbol, { write(line: string): boolean }>)[pino.symbols.streamSym];
  jest.spyOn(destination, 'write').mockImplementation((line: string) => {
    lines.push(...line.split('\n').filter(Boolean));
    return true;
  });
  return lines;
}
