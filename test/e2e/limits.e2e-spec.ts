import { ChildProcess } from 'node:child_process';
import { OpenAiFake } from '../fakes/openai-fake';
import {
  createApplication,
  getJson,
  postJson,
  RunningApi,
  spawnWorker,
  startApi,
  startWorker,
  testEnv,
  waitUntil,
} from '../helpers/gateway';
import { checkedFetch } from '../helpers/contract';

const embed = (api: RunningApi, apiKey: string, input = 'hello') =>
  postJson(`${api.url}/v1/embeddings`, { model: 'text-embedding-v4', input, dimensions: 64 }, apiKey);

describe('application limits, scope and IP whitelist', () => {
  const upstream = new OpenAiFake();
  let env: ReturnType<typeof testEnv>;
  let apiA: RunningApi;
  let apiB: RunningApi;
  let worker: { close(): Promise<void> };

  beforeAll(async () => {
    await upstream.start();
    env = testEnv({ UPSTREAM_PRIMARY_BASE_URL: upstream.baseUrl, CONCURRENCY_LEASE_MS: 2000 });
    [apiA, apiB, worker] = await Promise.all([startApi(env), startApi(env), startWorker(env)]);
  });

  afterAll(async () => {
    await Promise.all([apiA?.close(), apiB?.close(), worker?.close()]);
    await upstream.stop();
  });

  beforeEach(() => {
    upstream.reset();
    upstream.setDelay(0);
  });

  it('lets exactly N calls through a daily limit of N across two api instances hit at once', async () => {
    const { apiKey } = await createApplication(apiA, 'daily', { dailyCallLimit: 5 });
    const responses = await Promise.all(
      Array.from({ length: 14 }, (_, i) => embed(i % 2 ? apiA : apiB, apiKey, `d${i}`)),
    );
    const ok = responses.filter((r) => r.status === 200);
    const refused = responses.filter((r) => r.status === 429);
    expect(ok).toHaveLength(5);
    expect(refused).toHaveLength(9);
    refused.forEach((r) => {
      expect(r.body.error).toMatchObject({ code: 'DailyLimitExceeded', type: 'rate_limit_error' });
      expect(Number(r.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(r.headers.get('x-ratelimit-remaining-requests')).toBe('0');
    });
    expect(ok.map((r) => Number(r.headers.get('x-ratelimit-remaining-requests'))).sort()).toEqual([0, 1, 2, 3, 4]);
    expect(ok[0].headers.get('x-ratelimit-limit-requests')).toBe('5');
    expect(upstream.calls).toHaveLength(5);
    // Reads report the window without using it.
    const models = await getJson(`${apiB.url}/v1/models`, apiKey);
    expect(models.status).toBe(200);
    expect(models.headers.get('x-ratelimit-remaining-requests')).toBe('0');
    expect(models.headers.get('x-ratelimit-reset-requests')).toMatch(/^\d+s$/);
  });

  it('never lets more than C calls of an application run at once, across instances, and frees slots on completion', async () => {
    const { apiKey } = await createApplication(apiA, 'concurrent', { concurrencyLimit: 2 });
    upstream.setDelay(1000);
    const responses = await Promise.all(
      Array.from({ length: 8 }, (_, i) => embed(i % 2 ? apiA : apiB, apiKey, `c${i}`)),
    );
    const ok = responses.filter((r) => r.status === 200);
    const refused = responses.filter((r) => r.status === 429);
    expect(ok.length + refused.length).toBe(8);
    expect(ok.length).toBeGreaterThanOrEqual(2);
    expect(refused.length).toBeGreaterThanOrEqual(4);
    refused.forEach((r) => {
      expect(r.body.error.code).toBe('RateLimited');
      expect(r.headers.get('retry-after')).toBe('1');
    });
    expect(upstream.maxInFlight).toBeLessThanOrEqual(2);
    // Completed calls gave their slots back: sequential calls all pass.
    upstream.setDelay(0);
    for (let i = 0; i < 4; i++) expect((await embed(apiA, apiKey, `after${i}`)).status).toBe(200);
  });

  it('gives back the slot of a worker killed while holding it, once its lease expires', async () => {
    // Long job lock: nobody takes the dead worker's job over, so only the lease can free the slot.
    const isolated = testEnv({
      UPSTREAM_PRIMARY_BASE_URL: upstream.baseUrl,
      CONCURRENCY_LEASE_MS: 1500,
      JOB_LOCK_MS: 60_000,
      SYNC_TIMEOUT_MS: 10_000,
    });
    // SYNC_TIMEOUT_MS is long enough for the spawned worker to boot during the warm-up call.
    const api = await startApi(isolated);
    let doomed: ChildProcess | undefined;
    try {
      const { apiKey } = await createApplication(api, 'lease', { concurrencyLimit: 1 });
      const warmUp = await createApplication(api, 'warm-up');
      doomed = spawnWorker(isolated);
      // Answered only once the spawned worker runs, so the lease below starts with a live worker.
      expect(
        (
          await postJson(
            `${api.url}/v1/embeddings`,
            { model: 'text-embedding-v4', input: 'warm', dimensions: 64 },
            warmUp.apiKey,
          )
        ).status,
      ).toBe(200);
      upstream.reset();
      upstream.setDelay(10_000);
      const admittedAt = Date.now(); // the lease starts at admission
      const holder = new AbortController();
      void postJson(
        `${api.url}/v1/embeddings`,
        { model: 'text-embedding-v4', input: 'held' },
        apiKey,
        holder.signal,
      ).catch(() => undefined);
      await waitUntil(() => upstream.calls.length === 1, 'the worker to take the call', 20_000);
      doomed.kill('SIGKILL');
      holder.abort();
      // A refusal comes back at once; an admitted call waits for a worker (none is left), so silence means admitted.
      const admits = async () => {
        const probe = new AbortController();
        const timer = setTimeout(() => probe.abort(), 500);
        try {
          return (
            (
              await postJson(
                `${api.url}/v1/embeddings`,
                { model: 'text-embedding-v4', input: 'probe' },
                apiKey,
                probe.signal,
              )
            ).status !== 429
          );
        } catch {
          return true;
        } finally {
          clearTimeout(timer);
        }
      };
      expect(await admits()).toBe(false);
      await waitUntil(admits, 'the slot to come back', 10_000);
      const freedAfter = Date.now() - admittedAt;
      expect(freedAfter).toBeGreaterThanOrEqual(1400);
      expect(freedAfter).toBeLessThan(1500 + 4000);
    } finally {
      doomed?.kill('SIGKILL');
      await api.close();
    }
  });

  it('refuses calls over the requests-per-minute limit with 429 RateLimited until the minute turns', async () => {
    const { apiKey } = await createApplication(apiA, 'rpm', { requestsPerMinute: 3 });
    // Counting happens per UTC minute: start well inside one so the window cannot turn mid-test.
    const second = new Date().getUTCSeconds();
    if (second > 50) await new Promise((r) => setTimeout(r, (61 - second) * 1000));
    const statuses = [];
    for (let i = 0; i < 5; i++) {
      const response = await embed(i % 2 ? apiA : apiB, apiKey, `rpm${i}`);
      statuses.push(response.status);
      if (response.status === 429) {
        expect(response.body.error.code).toBe('RateLimited');
        const retryAfter = Number(response.headers.get('retry-after'));
        expect(retryAfter).toBeGreaterThan(0);
        expect(retryAfter).toBeLessThanOrEqual(60);
      }
    }
    expect(statuses).toEqual([200, 200, 200, 429, 429]);
  });

  it('stops calls at the token quota and records the upstream-reported usage on each task', async () => {
    const { apiKey } = await createApplication(apiA, 'quota', { tokenQuota: 40 });
    const text = 'x'.repeat(40); // the fake reports ceil(40 / 4) = 10 tokens; the gateway reserves fewer
    const results = [];
    for (let i = 0; i < 8; i++) results.push(await embed(apiA, apiKey, text));
    const ok = results.filter((r) => r.status === 200);
    expect(ok.length).toBe(4);
    const refused = results.filter((r) => r.status === 429);
    refused.forEach((r) => {
      expect(r.body.error.code).toBe('QuotaExceeded');
      expect(r.headers.get('retry-after')).not.toBeNull();
    });
    for (const r of ok) {
      const task = await getJson(`${apiA.url}/v1/tasks/${r.headers.get('x-task-id')}`, apiKey);
      expect(task.body.usage).toEqual(r.body.usage);
      expect(task.body.usage.total_tokens).toBe(10);
    }
  });

  it('refuses a capability or model outside the application scope with 403 ScopeDenied', async () => {
    const chatOnly = await createApplication(apiA, 'chat-only', { scope: { capabilities: ['chat'], models: [] } });
    const denied = await embed(apiA, chatOnly.apiKey);
    expect(denied.status).toBe(403);
    expect(denied.body.error).toMatchObject({ code: 'ScopeDenied', type: 'permission_error' });
    const oneModel = await createApplication(apiA, 'one-model', {
      scope: { capabilities: [], models: ['hash-embedding-v1'] },
    });
    expect((await embed(apiA, oneModel.apiKey)).body.error.code).toBe('ScopeDenied');
    expect(
      (await postJson(`${apiA.url}/v1/embeddings`, { model: 'hash-embedding-v1', input: 'x' }, oneModel.apiKey)).status,
    ).toBe(200);
    expect(upstream.calls).toHaveLength(0);
  });

  it('does not count a refused call against any other limit', async () => {
    const { apiKey } = await createApplication(apiA, 'stacked', {
      dailyCallLimit: 3,
      concurrencyLimit: 1,
      scope: { capabilities: ['embeddings'], models: [] },
    });
    upstream.setDelay(1500);
    const [first, second] = await Promise.all([embed(apiA, apiKey, 'a'), embed(apiB, apiKey, 'b')]);
    expect([first.status, second.status].sort()).toEqual([200, 429]);
    upstream.setDelay(0);
    // The call refused for concurrency did not use a daily call: two more still pass, then the limit holds.
    expect((await embed(apiA, apiKey, 'c')).status).toBe(200);
    expect((await embed(apiA, apiKey, 'd')).status).toBe(200);
    expect((await embed(apiA, apiKey, 'e')).body.error.code).toBe('DailyLimitExceeded');
  });

  describe('IP whitelist', () => {
    it('allows listed addresses and ranges and refuses others with 403 IpNotAllowed', async () => {
      const local = await createApplication(apiA, 'ip-ok', { ipWhitelist: ['10.0.0.0/8', '127.0.0.1'] });
      expect((await embed(apiA, local.apiKey)).status).toBe(200);
      const elsewhere = await createApplication(apiA, 'ip-no', { ipWhitelist: ['10.0.0.0/8', '2001:db8::/32'] });
      const refused = await embed(apiA, elsewhere.apiKey);
      expect(refused.status).toBe(403);
      expect(refused.body.error.code).toBe('IpNotAllowed');
    });

    it('ignores X-Forwarded-For from a peer that is not a trusted proxy', async () => {
      const app = await createApplication(apiA, 'spoof', { ipWhitelist: ['203.0.113.7'] });
      const response = await checkedFetch(`${apiA.url}/v1/embeddings`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          authorization: `Bearer ${app.apiKey}`,
          'x-forwarded-for': '203.0.113.7',
        },
        body: JSON.stringify({ model: 'text-embedding-v4', input: 'x' }),
      });
      expect(response.status).toBe(403);
    });

    it('follows X-Forwarded-For through a trusted proxy for IPv4, IPv6, CIDRs and IPv4-mapped addresses', async () => {
      const proxied = await startApi({ ...env, TRUSTED_PROXIES: '127.0.0.1' });
      try {
        const app = await createApplication(proxied, 'proxied', {
          ipWhitelist: ['198.51.100.0/24', '2001:db8::/32', '192.0.2.9'],
        });
        const from = async (client: string) => {
          const response = await checkedFetch(`${proxied.url}/v1/embeddings`, {
            method: 'POST',
            headers: {
              'content-type': 'application/json',
              authorization: `Bearer ${app.apiKey}`,
              'x-forwarded-for': client,
            },
            body: JSON.stringify({ model: 'text-embedding-v4', input: 'x' }),
          });
          return response.status;
        };
        expect(await from('198.51.100.23')).toBe(200);
        expect(await from('2001:db8:5::1')).toBe(200);
        expect(await from('::ffff:192.0.2.9')).toBe(200);
        expect(await from('198.51.101.1')).toBe(403);
        expect(await from('2001:db9::1')).toBe(403);
        expect(await from('127.0.0.1')).toBe(403);
      } finally {
        await proxied.close();
      }
    });
  });
});
