import { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WebhookDeliveriesRepository } from '@gateway/db';
import { OpenAiFake } from '../fakes/openai-fake';
import {
  createApplication,
  postJson,
  RunningApi,
  RunningWorker,
  startApi,
  startWorker,
  testEnv,
  waitFor,
  waitUntil,
} from '../helpers/gateway';
import { WebhookReceiver } from '../helpers/webhook-receiver';
// eslint-disable-next-line @typescript-eslint/no-require-imports
const services = require('../../scripts/services.js');

/**
 * A delivery the receiver accepted whose record cannot be written at once (the database goes away while the receiver
 * answers): the record is written when the database is back, and the event is not sent again.
 */
describe('a webhook delivered while the database is away', () => {
  const openai = new OpenAiFake();
  const receiver = new WebhookReceiver('127.0.0.2');
  let dir: string;
  let port: number;
  let ferret: ChildProcess | undefined;
  let api: RunningApi;
  let worker: RunningWorker;

  // A FerretDB of this suite's own in front of the shared PostgreSQL, so that stopping it leaves the others up.
  const startDatabase = async () => {
    ferret = await services.startFerretDb({
      port,
      postgresUrl: process.env.TEST_POSTGRES_URL,
      stateDir: join(dir, 'db'),
    });
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'gw-webhook-record-'));
    port = await services.freePort();
    await Promise.all([startDatabase(), openai.start(), receiver.start()]);
    const env = testEnv({
      MONGODB_URI: `mongodb://127.0.0.1:${port}/webhookrecord`,
      UPSTREAM_PRIMARY_BASE_URL: openai.baseUrl,
      OUTBOUND_ALLOW_CIDRS: '127.0.0.2/32',
      // Enough attempts to outlast the outage: each failed record write takes the driver's 5 s server selection.
      WEBHOOK_RETRY_SCHEDULE: '0,500ms,500ms,500ms,500ms,500ms,500ms,500ms',
    });
    [api, worker] = await Promise.all([startApi(env), startWorker(env)]);
  }, 60_000);

  afterAll(async () => {
    await Promise.all([api?.close(), worker?.close()]);
    await Promise.all([openai.stop(), receiver.stop(), services.stop(ferret, 'SIGKILL')]);
    rmSync(dir, { recursive: true, force: true });
  });

  it('records the attempt once the database is back, and sends the event exactly once', async () => {
    const app = await createApplication(api, 'record outage', { callbackUrl: receiver.url });
    let outage: Promise<void> | undefined;
    receiver.beforeAnswer = async () => {
      if (outage) return;
      // The database goes while the receiver answers 200, and comes back 8 s later: after the first record write
      // has failed, before the attempts run out.
      await services.stop(ferret, 'SIGKILL');
      outage = new Promise((resolve) => setTimeout(resolve, 8_000)).then(startDatabase);
    };
    const response = await postJson(
      `${api.url}/v1/embeddings`,
      { model: 'text-embedding-v4', input: 'during the outage', dimensions: 64 },
      app.apiKey,
    );
    expect(response.status).toBe(200);
    const taskId = response.headers.get('x-task-id')!;

    await waitUntil(() => outage !== undefined, 'the receiver to be called');
    await outage;
    const today = new Date().toISOString().slice(0, 10);
    const deliveries = api.app.get(WebhookDeliveriesRepository);
    const recorded = await waitFor(
      async () =>
        (await deliveries.listForApp(app.appId, { from: today, to: today, limit: 10 }).catch(() => ({ data: [] })))
          .data,
      (data) => data.length > 0,
      'the attempt to be recorded',
      30_000,
    );
    expect(recorded.map((d) => [d.taskId, d.attempt, d.outcome, d.httpStatus])).toEqual([
      [taskId, 1, 'delivered', 200],
    ]);
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(receiver.delivered(taskId)).toHaveLength(1);
  }, 90_000);
});
