import OpenAI from 'openai';
import { JobPickup } from '../../apps/worker/src/tasks/job-pickup.service';
import { PromptWorker } from '../../apps/worker/src/tasks/prompt-worker';
import { OpenAiFake } from '../fakes/openai-fake';
import {
  createApplication,
  getJson,
  RunningApi,
  RunningWorker,
  startApi,
  startWorker,
  testEnv,
  waitFor,
} from '../helpers/gateway';

/**
 * The core flows with each way a worker fetches jobs (WORKER_FETCH): PromptWorker, the default, which relies on
 * BullMQ's private parts, and BullMQ's own Worker, the way back should an upgrade break them. Every other suite runs
 * the default.
 */
describe.each(['prompt', 'bullmq'] as const)('WORKER_FETCH=%s', (fetcher) => {
  const upstream = new OpenAiFake();
  let api: RunningApi;
  let worker: RunningWorker;
  let apiKey: string;
  let client: OpenAI;

  beforeAll(async () => {
    await upstream.start();
    const env = testEnv({ UPSTREAM_PRIMARY_BASE_URL: upstream.baseUrl, WORKER_FETCH: fetcher });
    [api, worker] = await Promise.all([startApi(env), startWorker(env)]);
    ({ apiKey } = await createApplication(api));
    client = new OpenAI({ apiKey, baseURL: `${api.url}/v1`, maxRetries: 0 });
  });

  afterAll(async () => {
    await Promise.all([api?.close(), worker?.close()]);
    await upstream.stop();
  });

  beforeEach(() => upstream.reset());

  it('runs the worker it names', () => {
    const workers = worker.app.get(JobPickup).running();
    expect(workers.length).toBeGreaterThan(0);
    for (const each of workers) expect(each instanceof PromptWorker).toBe(fetcher === 'prompt');
  });

  it('answers synchronous embeddings, one after the other and many at once', async () => {
    for (let i = 0; i < 5; i++) {
      const answer = await client.embeddings.create({ model: 'text-embedding-v4', input: `one ${i}` });
      expect(answer.data).toHaveLength(1);
    }
    const many = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        client.embeddings.create({ model: 'text-embedding-v4', input: `many ${i}` }),
      ),
    );
    expect(many.every((answer) => answer.data.length === 1)).toBe(true);
  });

  it('streams a chat answer', async () => {
    const stream = await client.chat.completions.create({
      model: 'x-chat',
      messages: [{ role: 'user', content: 'Say hello.' }],
      stream: true,
    });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? '';
    expect(text.length).toBeGreaterThan(0);
  });

  it('runs an asynchronous task to its record', async () => {
    const accepted = await fetch(`${api.url}/v1/embeddings`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json', 'x-async': 'enable' },
      body: JSON.stringify({ model: 'text-embedding-v4', input: 'later' }),
    });
    expect(accepted.status).toBe(202);
    const { task_id: taskId } = (await accepted.json()) as { task_id: string };
    const done = await waitFor(
      async () => (await getJson(`${api.url}/v1/tasks/${taskId}`, apiKey)).body,
      (task) => task.status === 'succeeded' || task.status === 'failed',
      `task ${taskId} to finish`,
    );
    expect(done.status).toBe('succeeded');
  });

  it('retries a failed upstream call within the job', async () => {
    upstream.failNext({ times: 1, status: 500 });
    const answer = await client.embeddings.create({ model: 'text-embedding-v4', input: 'despite a failure' });
    expect(answer.data).toHaveLength(1);
    expect(upstream.calls).toHaveLength(2);
  });
});
