import Redis from 'ioredis';
import OpenAI from 'openai';
import { fakeVector, OpenAiFake } from '../fakes/openai-fake';
import { createApplication, RunningApi, RunningWorker, startApi, startWorker, testEnv } from '../helpers/gateway';
import { RedisTopologyUnderTest, startRedisSentinel } from '../helpers/redis-topologies';

/**
 * docs/operations.md (Redis Sentinel and Redis Cluster): the api and the worker find their Redis master through a
 * Sentinel. REDIS_URL points at a closed port, so a call answered proves the master came from the sentinel.
 */
describe('through Redis Sentinel', () => {
  const upstream = new OpenAiFake({ chatReply: 'The sentinel named the master.' });
  let sentinel: RedisTopologyUnderTest;
  let api: RunningApi;
  let worker: RunningWorker;
  let client: OpenAI;

  beforeAll(async () => {
    [sentinel] = await Promise.all([startRedisSentinel(), upstream.start()]);
    const env = testEnv({ ...sentinel.env, UPSTREAM_PRIMARY_BASE_URL: upstream.baseUrl });
    [api, worker] = await Promise.all([startApi(env), startWorker(env)]);
    const { apiKey } = await createApplication(api);
    client = new OpenAI({ apiKey, baseURL: `${api.url}/v1`, maxRetries: 0 });
  }, 60_000);

  afterAll(async () => {
    await Promise.all([api?.close(), worker?.close()]);
    await Promise.all([upstream.stop(), sentinel?.stop()]);
  });

  it('answers embeddings and chat, with the jobs on the master the sentinel monitors', async () => {
    const embedding = await client.embeddings.create({
      model: 'text-embedding-v4',
      input: 'found by sentinel',
      dimensions: 64,
      encoding_format: 'float',
    });
    expect(embedding.data[0].embedding).toEqual(fakeVector('found by sentinel', 64));
    const chat = await client.chat.completions.create({
      model: 'x-chat',
      messages: [{ role: 'user', content: 'who named the master?' }],
    });
    expect(chat.choices[0].message.content).toBe('The sentinel named the master.');
    const master = new Redis(sentinel.ports[0], '127.0.0.1');
    try {
      const prefix = api.config.REDIS_PREFIX;
      expect(await master.keys(`${prefix}:embeddings:*`)).not.toHaveLength(0);
      expect(await master.keys(`${prefix}:chat:*`)).not.toHaveLength(0);
    } finally {
      master.disconnect();
    }
  });
});
