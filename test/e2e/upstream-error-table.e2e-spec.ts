import { TasksRepository } from '@gateway/db';
import { join } from 'node:path';
import { DashScopeFake, startDashScopeFake } from '../fakes/dashscope-fake';
import { DASHSCOPE_ERROR_MESSAGES } from '../fakes/upstream-rules';
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
