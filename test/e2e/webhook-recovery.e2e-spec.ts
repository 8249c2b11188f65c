import { ChildProcess } from 'node:child_process';
import { BillingRecordsRepository } from '@gateway/db';
import { ImageStore } from '@gateway/imaging';
import { QueueName } from '@gateway/queue';
import { getQueueToken } from '@nestjs/bullmq';
import { Queue } from 'bullmq';
import { DashScopeFake, startDashScopeFake } from '../fakes/dashscope-fake';
import {
  createApplication,
  postJson,
  ROOT,
  spawnWorker,
  startApi,
  startWorker,
  testEnv,
  waitUntil,
} from '../helpers/gateway';
import { dataUri, editBody, noisyPng } from '../helpers/images';
import { readmeVerifier, WebhookReceiver } from '../helpers/webhook-receiver';

/**
 * At-least-once webhooks, exactly-once billing: a worker killed after the upstream answered, with image 1 of 2
 * stored and image 2 still downloading, is replaced; the rerun keeps image 1, each image is billed once and the
 * application hears about the task once.
 */
describe('webhooks and billing across a worker crash', () => {
  const receiver = new WebhookReceiver('127.0.0.2');
  let dashscope: DashScopeFake;

  beforeAll(async () => {
    [dashscope] = await Promise.all([startDashScopeFake(), receiver.start()]);
  });

  afterAll(async () => {
    await Promise.all([dashscope?.close(), receiver.stop()]);
  });

  it('delivers one webhook and one billing record per image after the rerun', async () => {
    const env = testEnv({
      UPSTREAM_DASHSCOPE_BASE_URL: dashscope.url,
      UPSTREAM_DASHSCOPE_API_KEY: 'k',
      OUTBOUND_ALLOW_CIDRS: '127.0.0.2/32',
      WEBHOOK_RETRY_SCHEDULE: '0,200ms,200ms',
      JOB_LOCK_MS: 1500,
      SYNC_TIMEOUT_MS: 60_000,
    });
    const api = await startApi(env);
    let doomed: ChildProcess | undefined;
    let rescuer: { close(): Promise<void> } | undefined;
    try {
      const app = await createApplication(api, 'crash', { callbackUrl: receiver.url });
      const billing = api.app.get(BillingRecordsRepository);
      doomed = spawnWorker(env);
      // The second output's download never completes while the first worker lives.
      dashscope.options.holdFiles = (seed) => seed === 501;
      const body = editBody('x-image-edit-plus-2025-10-30', [dataUri(await noisyPng(64, 48))], 'invert', {
        n: 2,
        seed: 500,
      });
      const pending = postJson(`${api.url}/v1/images/edits`, body, app.apiKey);

      const queue = api.app.get<Queue>(getQueueToken(QueueName.ImageEdit));
      let taskId = '';
      await waitUntil(
        async () => {
          const [job] = await queue.getActive();
          if (!job || dashscope.held.length === 0) return false;
          taskId = job.id!;
          return (await api.app.get(ImageStore).imageMetadata(`${taskId.replace(/^task_/, 'img_')}_0`)) !== null;
        },
        'image 1 stored while image 2 is still downloading',
        30_000,
      );
      doomed.kill('SIGKILL');
      expect(receiver.received).toHaveLength(0);
      // Nothing is billed before the task is delivered: the bills come with its record.
      expect(await billing.listForTask(taskId, app.appId)).toEqual([]);

      dashscope.options.holdFiles = undefined;
      rescuer = await startWorker(env);
      const response = await pending;
      expect(response.status).toBe(200);
      expect(response.body.data).toHaveLength(2);
      expect(response.headers.get('x-task-id')).toBe(taskId);
      // The rerun keeps the stored first output and generates only the second again: 2 + 1 generations.
      expect(dashscope.generations).toBe(3);
      expect(dashscope.calls.filter((call) => call.parameters.seed === 500)).toHaveLength(1);

      await waitUntil(() => receiver.delivered(taskId).length === 1, 'the webhook after recovery', 15_000);
      await new Promise((resolve) => setTimeout(resolve, 1000));
      expect(receiver.delivered(taskId)).toHaveLength(1);
      expect(
        readmeVerifier(ROOT)(
          app.secretKey,
          receiver.delivered(taskId)[0].headers,
          receiver.delivered(taskId)[0].rawBody,
        ),
      ).toBe(true);
      const records = await billing.listForTask(taskId, app.appId);
      expect(records.map((record) => record.index)).toEqual([0, 1]);
    } finally {
      doomed?.kill('SIGKILL');
      await Promise.all([api.close(), rescuer?.close()]);
    }
  });
});
