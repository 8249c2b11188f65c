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
import { OwnDatabase } from '../helpers/own-database';
import { WebhookReceiver } from '../helpers/webhook-receiver';

/**
 * A delivery the receiver accepted whose record cannot be written at once (the database goes away while the receiver
 * answers): the record is written when the database is back, and the event is not sent again.
 */
describe('a webhook delivered while the database is away', () => {
  const openai = new OpenAiFake();
  const receiver = new WebhookReceiver('127.0.0.2');
  let database: OwnDatabase;
  let api: RunningApi;
  let worker: RunningWorker;

  beforeAll(async () => {
    [database] = await Promise.all([OwnDatabase.start('webhook-record'), openai.start(), receiver.start()]);
    const env = testEnv({
      MONGODB_URI: database.uri('webhookrecord'),
      UPSTREAM_PRIMARY_BASE_URL: openai.baseUrl,
      OUTBOUND_ALLOW_CIDRS: '127.0.0.2/32',
      // Enough attempts to outlast the outage: each failed record write takes the driver's 5 s server selection.
      WEBHOOK_RETRY_SCHEDULE: '0,500ms,500ms,500ms,500ms,500ms,500ms,500ms',
    });
    [api, worker] = await Promise.all([startApi(env), startWorker(env)]);
  }, 60_000);

  afterAll(async () => {
    await Promise.all([api?.close(), worker?.close()]);
    await Promise.all([openai.stop(), receiver.stop(), database?.close()]);
  });

  it('records the attempt once the database is back, and sends the event exactly once', async () => {
    const app = await createApplication(api, 'record outage', { callbackUrl: receiver.url });
    let outage: Promise<void> | undefined;
    receiver.beforeAnswer = async () => {
      if (outage) return;
      // The database goes while the receiver answers 200, and comes back 8 s later: after the first record write
      // has failed, before the attempts run out.
      await database.kill();
      outage = new Promise((resolve) => setTimeout(resolve, 8_000)).then(() => database.restart());
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
