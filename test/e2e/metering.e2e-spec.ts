import { formatNanos } from '@gateway/common';
import { BillingRecordsRepository, UsageDailyRepository } from '@gateway/db';
import { spawnSync } from 'node:child_process';
import { OpenAiFake } from '../fakes/openai-fake';
import { ENTRY_POINTS } from '../../scripts/processes';
import {
  createApplication,
  getJson,
  postJson,
  processEnv,
  RunningApi,
  startApi,
  startWorker,
  testEnv,
  waitUntil,
} from '../helpers/gateway';

describe('metering: daily roll-ups and per-image billing records', () => {
  const upstream = new OpenAiFake();
  let env: ReturnType<typeof testEnv>;
  let api: RunningApi;
  let worker: { close(): Promise<void> };

  beforeAll(async () => {
    await upstream.start();
    env = testEnv({ UPSTREAM_PRIMARY_BASE_URL: upstream.baseUrl, USAGE_FLUSH_MS: 100 });
    [api, worker] = await Promise.all([startApi(env), startWorker(env)]);
  });

  afterAll(async () => {
    await Promise.all([api?.close(), worker?.close()]);
    await upstream.stop();
  });

  it('rolls calls, errors, tokens and cost up per application, model and UTC day, matching the task records', async () => {
    const { appId, apiKey } = await createApplication(api, 'metered');
    const taskIds: string[] = [];
    for (const input of ['one', 'two two', 'three three three']) {
      const response = await postJson(`${api.url}/v1/embeddings`, { model: 'text-embedding-v4', input }, apiKey);
      taskIds.push(response.headers.get('x-task-id')!);
    }
    const chat = await postJson(
      `${api.url}/v1/chat/completions`,
      { model: 'x-chat', messages: [{ role: 'user', content: 'count me in' }] },
      apiKey,
    );
    taskIds.push(chat.headers.get('x-task-id')!);
    upstream.failNext({ times: 3, status: 500 });
    const failed = await postJson(
      `${api.url}/v1/chat/completions`,
      { model: 'x-chat', messages: [{ role: 'user', content: 'fail' }] },
      apiKey,
    );
    expect(failed.status).toBe(500);

    const tasks = await Promise.all(taskIds.map((id) => getJson(`${api.url}/v1/tasks/${id}`, apiKey)));
    const day = new Date().toISOString().slice(0, 10);
    const repository = api.app.get(UsageDailyRepository);
    let rows: Awaited<ReturnType<UsageDailyRepository['listForApp']>> = [];
    await waitUntil(async () => {
      rows = await repository.listForApp(appId, day, day);
      return rows.reduce((sum, row) => sum + row.calls, 0) === 5;
    }, 'the roll-ups to be written');
    const embeddings = rows.find((row) => row.model === 'text-embedding-v4')!;
    const chatRow = rows.find((row) => row.model === 'x-chat')!;
    const embeddingTasks = tasks.slice(0, 3).map((t) => t.body);
    expect(embeddings).toMatchObject({ calls: 3, errors: 0, completionTokens: 0, images: 0 });
    expect(embeddings.promptTokens).toBe(embeddingTasks.reduce((sum, t) => sum + t.usage.prompt_tokens, 0));
    // Integer nanos: 0.0005 per 1k tokens is 500 a token, and each task shows its own share exactly.
    expect(embeddings.costNanos).toBe(embeddings.promptTokens * 500);
    expect(embeddingTasks.map((t) => t.cost)).toEqual(embeddingTasks.map((t) => (t.usage.prompt_tokens * 500) / 1e9));
    const chatUsage = tasks[3].body.usage;
    expect(chatRow).toMatchObject({
      calls: 2,
      errors: 1,
      promptTokens: chatUsage.prompt_tokens,
      completionTokens: chatUsage.completion_tokens,
      // The failed call costs nothing.
      costNanos: 800 * chatUsage.prompt_tokens + 2_000 * chatUsage.completion_tokens,
    });

    // The operator CLI shows the same figures.
    const cli = spawnSync(process.execPath, [ENTRY_POINTS.cli, 'usage', '--app', appId, '--json'], {
      env: processEnv(env),
      encoding: 'utf8',
    });
    expect({ status: cli.status, stderr: cli.stderr }).toEqual({ status: 0, stderr: '' });
    expect(JSON.parse(cli.stdout)).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ day, model: 'x-chat', calls: 2, errors: 1, costNanos: chatRow.costNanos }),
        expect.objectContaining({
          day,
          model: 'text-embedding-v4',
          costNanos: embeddings.costNanos,
          cost: formatNanos(embeddings.costNanos),
        }),
      ]),
    );
  });

  it('bills each delivered image exactly once, however often a job is retried', async () => {
    const billing = api.app.get(BillingRecordsRepository);
    const image = (index: number) => ({
      taskId: 'task_billingretry0000000001',
      index,
      appId: 'app_billing',
      model: 'x-image-edit-plus-2025-12-15',
      unitPriceNanos: 200_000_000,
      currency: 'CNY',
      day: '2026-11-22',
      createdAt: new Date(),
    });
    // First attempt stored two images, then failed; the retry delivers all four.
    expect(await billing.billImages([image(0), image(1)])).toBe(2);
    expect(await billing.billImages([image(0), image(1), image(2), image(3)])).toBe(2);
    expect(await billing.billImages([image(3)])).toBe(0);
    const records = await billing.listForTask('task_billingretry0000000001', 'app_billing');
    expect(records.map((r) => r.index)).toEqual([0, 1, 2, 3]);
  });
});
