import { LOGGER } from '@gateway/common';
import { TasksRepository } from '@gateway/db';
import type { Logger } from 'pino';
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

/**
 * The upstream's own id of each call (docs/operations.md, upstream request ids): recorded with the task's upstream
 * attempts for streamed answers too, and logged with the task id and route on every refusal.
 */
describe('upstream request ids in task records and logs', () => {
  const upstream = new OpenAiFake({ delayMs: 0 });
  // The catalog's `broken` upstream (x-chat-responses-fallback's first route): a slow stream the test cuts off.
  const slow = new OpenAiFake({ delayMs: 0, streamChunkDelayMs: 50, chatReply: 'word '.repeat(200) });
  let api: RunningApi;
  let worker: RunningWorker;
  let apiKey: string;
  let appId: string;
  let tasks: TasksRepository;
  let logs: jest.SpiedFunction<Logger['info']>[];

  beforeAll(async () => {
    await Promise.all([upstream.start(), slow.start()]);
    const env = testEnv({ UPSTREAM_PRIMARY_BASE_URL: upstream.baseUrl, UPSTREAM_BROKEN_BASE_URL: slow.baseUrl });
    [api, worker] = await Promise.all([startApi(env), startWorker(env)]);
    ({ apiKey, appId } = await createApplication(api));
    tasks = api.app.get(TasksRepository);
  });

  afterAll(async () => {
    await Promise.all([api?.close(), worker?.close()]);
    await Promise.all([upstream.stop(), slow.stop()]);
  });

  beforeEach(() => {
    upstream.reset();
    const logger = worker.app.get<Logger>(LOGGER);
    logs = [jest.spyOn(logger, 'info'), jest.spyOn(logger, 'warn')];
  });
  afterEach(() => jest.restoreAllMocks());

  const secret = 'the secret plan of the fox';
  const messages = [{ role: 'user', content: secret }];
  /** Posts, reads the whole answer (a stream to its end) and returns the task's stored record. */
  const run = async (path: string, body: unknown) => {
    const response = await fetch(`${api.url}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    await response.text();
    const taskId = response.headers.get('x-task-id')!;
    const record = await waitFor(
      () => tasks.findForApp(taskId, appId),
      (found) => found !== null && found.status !== 'queued' && found.status !== 'running',
      'the task record',
    );
    return { status: response.status, taskId, record: record! };
  };
  /** The worker's log lines (object, message) that name this task. */
  const linesOf = (taskId: string) =>
    logs
      .flatMap((spy) => spy.mock.calls)
      .filter(([fields]) => (fields as { taskId?: string } | undefined)?.taskId === taskId)
      .map(([fields, message]) => ({ fields: fields as Record<string, unknown>, message }));

  it("records a streamed chat's upstream request id (the x-request-id it answered with)", async () => {
    const { status, record } = await run('/v1/chat/completions', { model: 'x-chat', messages, stream: true });
    expect([status, record.status]).toEqual([200, 'succeeded']);
    expect(upstream.calls).toHaveLength(1);
    expect(record.upstream).toEqual([
      expect.objectContaining({ route: 'primary:gpt-test', outcome: 'ok', requestId: upstream.calls[0].requestId }),
    ]);
  });

  it("records a passed-through Responses stream's upstream request id", async () => {
    const { status, record } = await run('/v1/responses', { model: 'x-chat-responses', input: secret, stream: true });
    expect([status, record.status]).toEqual([200, 'succeeded']);
    expect(upstream.calls.map((call) => call.path)).toEqual(['/v1/responses']);
    expect(record.upstream?.[0]).toMatchObject({ outcome: 'ok', requestId: upstream.calls[0].requestId });
  });

  it('logs a request the upstream rejects once, with task id, route and upstream id, and not the request', async () => {
    upstream.failNext({ times: 1, status: 400 });
    const { status, taskId, record } = await run('/v1/chat/completions', { model: 'x-chat', messages });
    expect([status, record.upstream?.[0].requestId]).toEqual([400, upstream.calls[0].requestId]);
    const lines = linesOf(taskId);
    expect(lines).toEqual([
      {
        message: 'upstream rejected the request',
        fields: expect.objectContaining({
          route: 'primary:gpt-test',
          failure: 'request',
          status: 400,
          upstreamRequestId: upstream.calls[0].requestId,
        }),
      },
    ]);
    expect(JSON.stringify(lines)).not.toContain(secret);
  });

  it("logs content inspection's refusal once, with task id, route and upstream id", async () => {
    const error = {
      message: 'Input data may contain inappropriate content.',
      type: 'invalid_request_error',
      param: null,
    };
    upstream.failNext({ times: 1, status: 400, body: { error: { ...error, code: 'data_inspection_failed' } } });
    const { status, taskId, record } = await run('/v1/chat/completions', { model: 'x-chat', messages });
    expect([status, record.error?.code]).toEqual([400, 'ContentRejected']);
    expect(linesOf(taskId)).toEqual([
      {
        message: 'upstream content inspection refused the input',
        fields: expect.objectContaining({
          route: 'primary:gpt-test',
          failure: 'content',
          code: 'data_inspection_failed',
          upstreamRequestId: upstream.calls[0].requestId,
        }),
      },
    ]);
  });

  it("logs a route that failed after its retries once, with the last call's upstream id", async () => {
    upstream.failNext({ times: 10, status: 500 });
    const { status, taskId } = await run('/v1/chat/completions', { model: 'x-chat', messages });
    expect(status).toBe(500);
    const last = upstream.calls[upstream.calls.length - 1];
    expect(linesOf(taskId)).toEqual([
      {
        message: 'route failed, trying the next one',
        fields: expect.objectContaining({
          route: 'primary:gpt-test',
          failure: 'retryable',
          status: 500,
          upstreamRequestId: last.requestId,
        }),
      },
    ]);
  });

  it('records and logs a stream that broke off after it was relayed by the id it was answered with', async () => {
    const body = { model: 'x-chat-responses-fallback', input: secret, stream: true };
    const running = run('/v1/responses', body);
    await waitFor(
      () => slow.streamed[0]?.sent ?? 0,
      (sent) => sent >= 3,
      'a few relayed pieces',
    );
    await slow.stop();
    const { taskId, record } = await running;
    expect([record.status, record.error?.code]).toEqual(['failed', 'UpstreamError']);
    expect(record.upstream).toEqual([
      expect.objectContaining({ route: 'broken:gpt-test', outcome: 'retryable', requestId: slow.calls[0].requestId }),
    ]);
    expect(linesOf(taskId)).toEqual([
      {
        message: 'upstream stream broke off',
        fields: expect.objectContaining({ route: 'broken:gpt-test', upstreamRequestId: slow.calls[0].requestId }),
      },
    ]);
  });
});
