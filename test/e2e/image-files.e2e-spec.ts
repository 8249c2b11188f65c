import { ImageStore } from '@gateway/imaging';
import { Connection } from 'mongoose';
import { getConnectionToken } from '@nestjs/mongoose';
import { getQueueToken } from '@nestjs/bullmq';
import { QueueName } from '@gateway/queue';
import { Queue } from 'bullmq';
import { dataUri, download, editBody, noisyPng } from '../helpers/images';
import {
  createApplication,
  getJson,
  postJson,
  RunningApi,
  startApi,
  startWorker,
  testEnv,
  waitUntil,
} from '../helpers/gateway';
import { checkedFetch } from '../helpers/contract';

const PLUS = 'x-image-edit-plus';

/** Generated images behind signed, expiring URLs, and the sweep that deletes them (docs/contracts.md). */
describe('GET /v1/files/{id}', () => {
  let api: RunningApi;
  let worker: { close(): Promise<void> };
  let apiKey: string;
  let store: ImageStore;
  let connection: Connection;

  beforeAll(async () => {
    const env = testEnv({ IMAGE_URL_TTL: 8, MAINTENANCE_INTERVAL_MS: 1000, IMAGE_INLINE_INPUT_BYTES: 1024 });
    [api, worker] = await Promise.all([startApi(env), startWorker(env)]);
    ({ apiKey } = await createApplication(api));
    store = api.app.get(ImageStore);
    connection = api.app.get(getConnectionToken());
  });

  afterAll(async () => {
    await Promise.all([api?.close(), worker?.close()]);
  });

  async function generate() {
    // Larger than IMAGE_INLINE_INPUT_BYTES here, so the input goes through the GridFS `inputs` bucket.
    const input = await noisyPng(96, 64);
    const response = await postJson(`${api.url}/v1/images/edits`, editBody(PLUS, [dataUri(input)], 'blur'), apiKey);
    expect(response.status).toBe(200);
    return Object.assign(new URL(response.body.data[0].url), { taskId: response.headers.get('x-task-id')! });
  }

  it('serves the image at its signed URL, on the origin the caller used, with no API key', async () => {
    const url = await generate();
    expect(url.origin).toBe(api.url);
    expect(url.pathname).toMatch(/^\/v1\/files\/img_/);
    const file = await download(url.href);
    expect(file.status).toBe(200);
    expect(file.type).toBe('image/png');
    expect(file.bytes.subarray(1, 4).toString()).toBe('PNG');
  });

  it('refuses a tampered URL with 403 in the error envelope', async () => {
    const url = await generate();
    const tamper = async (change: (u: URL) => void) => {
      const copy = new URL(url.href);
      change(copy);
      return download(copy.href);
    };
    const forgedSig = await tamper((u) => u.searchParams.set('sig', `${u.searchParams.get('sig')!.slice(0, -2)}AA`));
    const laterExp = await tamper((u) => u.searchParams.set('exp', String(Number(u.searchParams.get('exp')) + 3600)));
    const otherId = await tamper((u) => (u.pathname = u.pathname.replace(/_0$/, '_1')));
    const noSig = await tamper((u) => u.searchParams.delete('sig'));
    for (const response of [forgedSig, laterExp, otherId, noSig]) {
      expect(response.status).toBe(403);
      expect(response.body.error.code).toBe('InvalidUrlSignature');
    }
  });

  it('answers 410 once the URL has expired, and the maintenance sweep deletes the image', async () => {
    const url = await generate();
    const fileId = decodeURIComponent(url.pathname.split('/').pop()!);
    expect(await store.openImage(fileId)).not.toBeNull();
    await new Promise((resolve) => setTimeout(resolve, 8200));
    const expired = await download(url.href);
    expect(expired.status).toBe(410);
    expect(expired.body.error.code).toBe('UrlExpired');
    await waitUntil(
      async () => (await store.openImage(fileId)) === null,
      'the sweep to delete the expired image',
      10_000,
    );
  });

  it('keeps large inputs out of the job, deletes them once the task is final, and removes the finished job', async () => {
    const queue = api.app.get<Queue>(getQueueToken(QueueName.ImageEdit));
    // Paused, the job waits where it can be read: a finished image-edit job is removed at once.
    await queue.pause();
    let taskId: string;
    let stored: string;
    try {
      const response = await checkedFetch(`${api.url}/v1/images/edits`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${apiKey}`, 'x-async': 'enable' },
        body: JSON.stringify(editBody(PLUS, [dataUri(await noisyPng(96, 64))], 'blur')),
      });
      expect(response.status).toBe(202);
      taskId = ((await response.json()) as { task_id: string }).task_id;
      const job = await queue.getJob(taskId);
      expect(job!.data.images).toEqual([{ stored: expect.stringMatching(/^in_/) }]);
      expect(JSON.stringify(job!.data).length).toBeLessThan(2048);
      stored = (job!.data.images[0] as { stored: string }).stored;
    } finally {
      await queue.resume();
    }
    const inputs = connection.db!.collection<{ _id: string }>('inputs.files');
    await waitUntil(
      async () => (await getJson(`${api.url}/v1/tasks/${taskId}`, apiKey)).body.status === 'succeeded',
      'the task to succeed',
      10_000,
    );
    await waitUntil(async () => (await queue.getJob(taskId)) === undefined, 'the finished job to be removed', 5_000);
    // Nothing reads the queue's event stream: it is kept short.
    expect(await (await queue.client).hget(queue.keys.meta, 'opts.maxLenEvents')).toBe('1000');
    await waitUntil(
      async () => (await inputs.countDocuments({ _id: stored })) === 0,
      'the stored input to be deleted',
      5_000,
    );
  });
});
