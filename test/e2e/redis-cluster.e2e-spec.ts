import { AppConfig } from '@gateway/common';
import { GatewayRedis } from '@gateway/redis';
import { LimitsService, Principal } from '@gateway/tenancy';
import Redis from 'ioredis';
import OpenAI from 'openai';
import { fakeVector, OpenAiFake } from '../fakes/openai-fake';
import { consoleClient, createOperator } from '../helpers/console';
import { checkedFetch } from '../helpers/contract';
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
import { RedisTopologyUnderTest, startRedisCluster } from '../helpers/redis-topologies';

/**
 * docs/operations.md (Redis Sentinel and Redis Cluster): an api and a worker on a 3-master Redis Cluster, through
 * every kind of Redis use a call makes: BullMQ jobs, the delivery and admission scripts, MULTI, the reply channel
 * (pub/sub) and the chunk stream (blocking XREAD).
 */
describe('on a Redis Cluster of three masters', () => {
  const upstream = new OpenAiFake({ chatReply: 'Three masters share sixteen thousand slots between them today.' });
  let cluster: RedisTopologyUnderTest;
  let api: RunningApi;
  let worker: RunningWorker;
  let apiKey: string;
  let client: OpenAI;

  beforeAll(async () => {
    [cluster] = await Promise.all([startRedisCluster(3), upstream.start()]);
    const env = testEnv({ ...cluster.env, UPSTREAM_PRIMARY_BASE_URL: upstream.baseUrl, USAGE_FLUSH_MS: 100 });
    [api, worker] = await Promise.all([startApi(env), startWorker(env)]);
    ({ apiKey } = await createApplication(api));
    client = new OpenAI({ apiKey, baseURL: `${api.url}/v1`, maxRetries: 0 });
  }, 120_000);

  afterAll(async () => {
    await Promise.all([api?.close(), worker?.close()]);
    await Promise.all([upstream.stop(), cluster?.stop()]);
  });

  beforeEach(() => upstream.reset());

  const post = async (path: string, body: unknown, key: string, headers: Record<string, string> = {}) => {
    const response = await checkedFetch(`${api.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}`, ...headers },
      body: JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, headers: response.headers, text, body: JSON.parse(text) };
  };

  it('puts every key under the hash tag of the prefix', () => {
    const config = api.app.get(AppConfig);
    expect(config.redisTopology.mode).toBe('cluster');
    expect(config.redisKeyPrefix).toBe(`{${config.REDIS_PREFIX}}`);
  });

  it('answers embeddings through the queue and the reply channel', async () => {
    const result = await client.embeddings.create({
      model: 'text-embedding-v4',
      input: 'hello cluster',
      dimensions: 64,
      encoding_format: 'float',
    });
    expect(result.data[0].embedding).toEqual(fakeVector('hello cluster', 64));
    expect(upstream.calls).toHaveLength(1);
  });

  it('streams chat chunks through a Redis Stream that add up to the whole answer', async () => {
    const messages = [{ role: 'user' as const, content: 'count the slots' }];
    const whole = await client.chat.completions.create({ model: 'x-chat', messages, temperature: 0, seed: 1 });
    const stream = await client.chat.completions.create({
      model: 'x-chat',
      messages,
      temperature: 0,
      seed: 1,
      stream: true,
    });
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(chunks.filter((chunk) => chunk.choices[0]?.delta?.content).length).toBeGreaterThan(3);
    expect(chunks.map((chunk) => chunk.choices[0]?.delta?.content ?? '').join('')).toBe(
      whole.choices[0].message.content,
    );
  });

  it('refuses the call past a daily limit with 429 DailyLimitExceeded', async () => {
    const { apiKey: limitedKey } = await createApplication(api, 'daily-on-cluster', { dailyCallLimit: 2 });
    const body = { model: 'text-embedding-v4', input: 'limited', dimensions: 64 };
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await post('/v1/embeddings', body, limitedKey)).status);
    expect(statuses).toEqual([200, 200, 429]);
    const refused = await post('/v1/embeddings', body, limitedKey);
    expect(refused.body.error.code).toBe('DailyLimitExceeded');
    expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
  });

  it("admits and settles an application's budget with its owner's in one script", async () => {
    const limits = api.app.get(LimitsService);
    const day = { amountNanos: 1_000, period: 'day' as const };
    const principal = {
      appId: 'app_cluster_budget',
      budget: day,
      ownerBudget: { userId: 'usr_cluster_owner', budget: day },
      dailyCallLimit: 0,
      concurrencyLimit: 1,
      requestsPerMinute: 0,
      tokenQuota: 0,
    } as Principal;
    const reserve = { tokens: () => 1, costNanos: () => 600 };
    const { admission } = await limits.admit(principal, reserve);
    await expect(limits.admit(principal, reserve)).rejects.toMatchObject({ code: 'RateLimited' });
    await limits.settle(principal.appId, admission, 1, 600);
    await expect(limits.admit(principal, reserve)).rejects.toMatchObject({ code: 'BudgetExceeded' });
    expect((await limits.budgetSpent(principal)).map((spending) => spending.spentNanos)).toEqual([600, 600]);
  });

  it('replays an Idempotency-Key answer without calling the upstream again', async () => {
    const body = { model: 'text-embedding-v4', input: 'once only', dimensions: 64 };
    const key = `cluster-${Date.now()}`;
    const first = await post('/v1/embeddings', body, apiKey, { 'idempotency-key': key });
    const replay = await post('/v1/embeddings', body, apiKey, { 'idempotency-key': key });
    expect(first.status).toBe(200);
    expect(replay.status).toBe(200);
    expect(replay.text).toBe(first.text);
    expect(upstream.calls).toHaveLength(1);
  });

  it('runs an async task to its record', async () => {
    const body = { model: 'text-embedding-v4', input: 'later', dimensions: 64 };
    const accepted = await post('/v1/embeddings', body, apiKey, { 'x-async': 'enable' });
    expect(accepted.status).toBe(202);
    const taskId = accepted.body.task_id as string;
    const view = await waitFor(
      async () => (await getJson(`${api.url}/v1/tasks/${taskId}`, apiKey)).body,
      (task) => task.status === 'succeeded',
      `task ${taskId} to succeed`,
    );
    expect(view.result.data[0].embedding).toHaveLength(64);
  });

  it('signs a console operator in and refuses a wrong password, through the sign-in throttle scripts', async () => {
    const email = 'cluster-operator@example.com';
    expect((await createOperator(api, email)).id).toBeTruthy();
    const wrong = await consoleClient(api.url).call('POST', '/auth/login', undefined, {
      email,
      password: 'wrong password!',
    });
    expect(wrong.body.error.code).toBe('InvalidCredentials');
  });

  it("keeps the gateway's keys on the one slot of its tag", async () => {
    const prefix = api.app.get(AppConfig).redisKeyPrefix;
    const redis = api.app.get(GatewayRedis).client;
    const slot = await redis.cluster('KEYSLOT', prefix);
    const ranges = await redis.cluster('SLOTS');
    const [host, port] = ranges.find(([from, to]) => from <= slot && slot <= to)![2];
    const node = new Redis(port, host);
    try {
      const keys = await node.keys(`${prefix}:*`);
      expect(keys.some((key) => key.includes(':embeddings:'))).toBe(true);
      expect(keys.some((key) => key.includes(':lim:'))).toBe(true);
      expect(await node.cluster('COUNTKEYSINSLOT', slot)).toBe(keys.length);
    } finally {
      node.disconnect();
    }
  });
});
