import { TasksRepository } from '@gateway/db';
import { join } from 'node:path';
import { DashScopeFake, startDashScopeFake } from '../fakes/dashscope-fake';
import { OpenAiFake } from '../fakes/openai-fake';
import { COMPATIBLE_ERRORS, compatibleErrorBody, DASHSCOPE_ERROR_MESSAGES } from '../fakes/upstream-rules';
import { dataUri, editBody, noisyPng } from '../helpers/images';
import {
  createApplication,
  postJson,
  ROOT,
  RunningApi,
  startApi,
  startWorker,
  testEnv,
  waitFor,
} from '../helpers/gateway';

const DASHSCOPE_KEY = 'sk-upstream-dashscope';
const ROUTE = 'dashscope:qwen-image-edit-plus-2025-12-15';

/**
 * DashScope's published error table (libs/providers/src/upstream-error-table.ts, docs/contracts.md "Upstream
 * errors"), through the gateway against the DashScope fake answering each code with its documented status and
 * message: whose failure each is, what the caller is told, whether the route is asked again and whether the next
 * route (the shipped catalog's local engine) serves.
 */
describe('DashScope error codes as the published table classes them', () => {
  let dashscope: DashScopeFake;
  let api: RunningApi;
  let worker: { close(): Promise<void> };
  let apiKey: string;
  let appId: string;
  let tasks: TasksRepository;
  let image: string;

  beforeAll(async () => {
    dashscope = await startDashScopeFake({ apiKey: DASHSCOPE_KEY });
    const env = testEnv({
      MODELS_CONFIG: join(ROOT, 'config', 'models.yaml'),
      UPSTREAM_DASHSCOPE_BASE_URL: dashscope.url,
      UPSTREAM_DASHSCOPE_API_KEY: DASHSCOPE_KEY,
    });
    [api, worker] = await Promise.all([startApi(env), startWorker(env)]);
    ({ apiKey, appId } = await createApplication(api));
    tasks = api.app.get(TasksRepository);
    image = dataUri(await noisyPng(300, 200));
  });

  afterAll(async () => {
    await Promise.all([api?.close(), worker?.close()]);
    await dashscope?.close();
  });

  beforeEach(() => dashscope.reset());

  const edit = () =>
    postJson(`${api.url}/v1/images/edits`, editBody('x-image-edit-plus', [image], '把背景换成海边'), apiKey);
  const recordOf = (response: { headers: Headers }) =>
    waitFor(
      () => tasks.findForApp(response.headers.get('x-task-id')!, appId),
      (record) => record !== null && record.status !== 'queued' && record.status !== 'running',
      'the task record',
    );

  it.each([
    ['PrepaidBillOverdue', 'PrepaidBillOverdue', undefined],
    ['PostpaidBillOverdue', 'PostpaidBillOverdue', undefined],
    ['AccessDenied.Unpurchased', 'AccessDenied.Unpurchased', undefined],
    ['Workspace.AccessDenied', 'Workspace.AccessDenied', undefined],
    [
      'Throttling.AllocationQuota "Free allocated quota exceeded."',
      'Throttling.AllocationQuota',
      DASHSCOPE_ERROR_MESSAGES.freeQuotaExceeded,
    ],
  ])('%s: the route’s, not asked again; the next route serves', async (_label, code, message) => {
    dashscope.failWhen(() => true, { code, message });
    const response = await edit();
    expect(response.status).toBe(200);
    expect(dashscope.calls).toHaveLength(1);
    const record = await recordOf(response);
    expect(record?.provider).toBe('local');
    expect(record?.upstream).toEqual([expect.objectContaining({ route: ROUTE, outcome: 'route', code })]);
  });

  it.each(['Throttling.AllocationQuota', 'LimitRequests'])(
    '429 %s: a throttle, retried on the same route',
    async (code) => {
      dashscope.failNext({ code });
      const response = await edit();
      expect(response.status).toBe(200);
      expect(dashscope.calls.map((call) => call.status)).toEqual([429, 200]);
      const record = await recordOf(response);
      expect(record?.provider).toBe('dashscope');
      expect(record?.upstream?.map(({ outcome, code: answered }) => [outcome, answered])).toEqual([
        ['retryable', code],
        ['ok', undefined],
      ]);
    },
  );

  it.each([
    [
      400,
      'InternalError.Algo',
      DASHSCOPE_ERROR_MESSAGES.missingContentLength,
      /could not fetch an input file.*Content-Length/,
    ],
    [400, 'BadRequest.InputDownloadFailed', undefined, /could not fetch an input file: .*Failed to download/],
    [400, 'InvalidURL', undefined, /could not fetch an input file: .*Invalid URL/],
    [400, 'BadRequest.UnsupportedFileFormat', undefined, /does not support the format of an input file/],
  ])('%i %s: the caller’s input, answered 400 without another call or route', async (status, code, message, says) => {
    dashscope.failWhen(() => true, { status, code, message });
    const response = await edit();
    expect(response.status).toBe(400);
    expect(response.body.error.code).toBe('InvalidParameter');
    expect(response.body.error.message).toMatch(says);
    expect(dashscope.calls).toHaveLength(1);
    const record = await recordOf(response);
    expect(record?.upstream).toEqual([expect.objectContaining({ route: ROUTE, outcome: 'request', code })]);
  });
});

/**
 * Compatible mode's `insufficient_quota` (a chat route of the test catalog, one route, against the OpenAI fake
 * answering compatible mode's body): a throttle, unless its message says the free quota is used up; OpenAI's own
 * `insufficient_quota`, without DashScope's `request_id`, is an account out of credit.
 */
describe('insufficient_quota as compatible mode and OpenAI mean it', () => {
  const upstream = new OpenAiFake({ delayMs: 0 });
  let api: RunningApi;
  let worker: { close(): Promise<void> };
  let apiKey: string;

  beforeAll(async () => {
    await upstream.start();
    const env = testEnv({ UPSTREAM_PRIMARY_BASE_URL: upstream.baseUrl, UPSTREAM_PRIMARY_API_KEY: 'upstream-secret' });
    [api, worker] = await Promise.all([startApi(env), startWorker(env)]);
    ({ apiKey } = await createApplication(api));
  });

  afterAll(async () => {
    await Promise.all([api?.close(), worker?.close()]);
    await upstream.stop();
  });

  beforeEach(() => upstream.reset());

  const chat = () =>
    postJson(
      `${api.url}/v1/chat/completions`,
      { model: 'x-chat', messages: [{ role: 'user', content: 'hi' }] },
      apiKey,
    );
  const { status, message } = COMPATIBLE_ERRORS.insufficient_quota;

  it('a TPM throttle: retried on the same route, which then answers', async () => {
    upstream.failNext({ times: 1, status, body: compatibleErrorBody('insufficient_quota', message, 'r-tpm') });
    const response = await chat();
    expect(response.status).toBe(200);
    expect(upstream.calls).toHaveLength(2);
  });

  it('"Free allocated quota exceeded.": the route’s, not asked again', async () => {
    const body = compatibleErrorBody('insufficient_quota', DASHSCOPE_ERROR_MESSAGES.freeQuotaExceeded, 'r-free');
    upstream.failNext({ times: 5, status, body });
    const response = await chat();
    expect(response.status).toBe(500);
    expect(response.body.error.code).toBe('UpstreamError');
    expect(upstream.calls).toHaveLength(1);
  });

  it('OpenAI’s own (no request_id in the body): out of credit, the route’s', async () => {
    upstream.failNext({ times: 5, error: 'insufficient_quota' });
    const response = await chat();
    expect(response.status).toBe(500);
    expect(upstream.calls).toHaveLength(1);
  });
});
