import Redis from 'ioredis';
import { randomUUID } from 'node:crypto';
import { testConfig } from '../../../test/helpers/test-env';
import { defineScript } from './redis-script';

/** Scripts against the suite's Redis: each test uses keys of its own. */
describe('defineScript', () => {
  const { REDIS_URL } = testConfig();
  let client: Redis;
  let key: string;

  const ADD = defineScript<[counter: string], [by: number], number>({
    name: 'specAdd',
    keys: 1,
    lua: `return redis.call('INCRBY', KEYS[1], ARGV[1])`,
  });
  const SUM_ALL = defineScript<string[], [base: number], number>({
    name: 'specSumAll',
    keys: 'variable',
    lua: `local total = tonumber(ARGV[1])
for _, key in ipairs(KEYS) do total = total + tonumber(redis.call('GET', key) or '0') end
return total`,
  });

  beforeAll(() => {
    client = new Redis(REDIS_URL);
  });

  afterAll(() => client.quit());

  beforeEach(() => {
    key = `redis-script-spec:${randomUUID()}`;
  });

  it('defines itself on a client the first time it runs there, and answers as typed', async () => {
    expect(await ADD.run(client, [key], [2])).toBe(2);
    expect(await ADD.run(client, [key], [3])).toBe(5);
  });

  it('loads itself again when the server forgot it (EVALSHA falls back to EVAL)', async () => {
    await ADD.run(client, [key], [1]);
    await client.script('FLUSH');
    expect(await ADD.run(client, [key], [1])).toBe(2);
  });

  it('sends the key count with each call when it varies', async () => {
    await client.set(`${key}:a`, 4);
    await client.set(`${key}:b`, 5);
    expect(await SUM_ALL.run(client, [`${key}:a`, `${key}:b`], [1])).toBe(10);
    expect(await SUM_ALL.run(client, [`${key}:a`], [0])).toBe(4);
  });

  it('runs in a pipeline made after it was defined on the client, also when the server forgot it', async () => {
    ADD.defineOn(client);
    await client.script('FLUSH');
    const pipeline = client.pipeline().set(key, 10);
    ADD.queue(pipeline, [key], [5]);
    expect(await pipeline.exec()).toEqual([
      [null, 'OK'],
      [null, 15],
    ]);
  });

  it('refuses a pipeline whose client never had it, and a second script under a taken name', () => {
    const fresh = new Redis(REDIS_URL, { lazyConnect: true });
    expect(() => ADD.queue(fresh.pipeline(), [key], [1])).toThrow('script specAdd was not defined');
    const impostor = defineScript<[string], [], number>({ name: 'specAdd', keys: 1, lua: 'return 0' });
    ADD.defineOn(fresh);
    expect(() => impostor.defineOn(fresh)).toThrow('another script is already defined as specAdd');
    fresh.disconnect();
  });
});
