import { REFUSALS_KEPT } from '@gateway/redis';
import { OpenAiFake } from '../fakes/openai-fake';
import { consoleClient, ConsoleUser } from '../helpers/console';
import { postJson, RunningApi, startApi, testEnv, waitFor } from '../helpers/gateway';

/**
 * docs/contracts.md (Redis keys `refused`, `refused-count`): /v1 calls refused before the queue are listed to their
 * application in the console, however they were refused, and a flood of them keeps a bounded list and a count.
 */
describe('console API: calls refused before the queue', () => {
  const upstream = new OpenAiFake();
  let api: RunningApi;
  let user: ConsoleUser;

  beforeAll(async () => {
    await upstream.start();
    // No worker: an accepted asynchronous call stays queued, which is all the daily limit needs to count it.
    api = await startApi(testEnv({ AUTH_CACHE_TTL_MS: 100, UPSTREAM_PRIMARY_BASE_URL: upstream.baseUrl }));
    user = await consoleClient(api.url).register('refused@example.com');
  });

  afterAll(async () => {
    await api?.close();
    await upstream.stop();
  });

  const call = (...args: Parameters<ReturnType<typeof consoleClient>['call']>) => consoleClient(api.url).call(...args);
  const embeddings = (apiKey: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${api.url}/v1/embeddings`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${apiKey}`, ...headers },
      body: JSON.stringify(body),
    });

  async function application(settings: Record<string, unknown> = {}) {
    const created = await call('POST', '/applications', user, { name: `app ${Math.random()}`, ...settings });
    expect(created.status).toBe(201);
    return created.body.credentials as { app_id: string; api_key: string };
  }

  /** The refusals the console lists once as many as `count` are written (they are written in batches). */
  function refusals(appId: string, count: number, query = '') {
    const offset = Number(/offset=(\d+)/.exec(query)?.[1] ?? 0);
    return waitFor(
      async () => (await call('GET', `/applications/${appId}/refusals${query}`, user)).body,
      (page) => offset + page.data.length + page.not_listed >= count,
      `${count} refusals of ${appId}`,
    );
  }

  it('lists a 400, a 401 of a known application, a 403 and a 429 with their codes, newest first', async () => {
    const { app_id: appId, api_key: apiKey } = await application({ daily_call_limit: 1 });
    expect((await embeddings(apiKey, { model: 'text-embedding-v4' })).status).toBe(400);
    const accepted = await embeddings(apiKey, { model: 'text-embedding-v4', input: 'one' }, { 'x-async': 'enable' });
    expect([accepted.status, await accepted.text()]).toEqual([202, expect.any(String)]);
    const limited = await embeddings(apiKey, { model: 'text-embedding-v4', input: 'two' }, { 'x-async': 'enable' });
    expect(limited.status).toBe(429);
    const forged = await fetch(`${api.url}/v1/embeddings`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-app-id': appId,
        'x-timestamp': String(Math.floor(Date.now() / 1000)),
        'x-nonce': 'forged-nonce-1',
        'x-signature': Buffer.alloc(32).toString('base64'),
      },
      body: JSON.stringify({ model: 'text-embedding-v4', input: 'three' }),
    });
    expect(forged.status).toBe(401);

    const listed = await refusals(appId, 3);
    expect(listed.not_listed).toBe(0);
    expect(listed.data.map((row: { status: number; code: string }) => [row.status, row.code])).toEqual([
      [401, 'InvalidSignature'],
      [429, 'DailyLimitExceeded'],
      [400, 'InvalidParameter'],
    ]);
    const [signed, tooMany, invalid] = listed.data;
    expect(signed).toMatchObject({ app_id: appId, route: '/v1/embeddings', method: 'POST', key_id: null });
    expect(tooMany).toMatchObject({
      model: 'text-embedding-v4',
      async: true,
      request_id: limited.headers.get('x-request-id'),
    });
    expect(tooMany.key_id).toMatch(/^key_/);
    expect(invalid).toMatchObject({ model: 'text-embedding-v4', async: false });

    const restricted = await application({ ip_whitelist: ['10.0.0.0/8'] });
    expect((await embeddings(restricted.api_key, { model: 'text-embedding-v4', input: 'x' })).status).toBe(403);
    expect((await refusals(restricted.app_id, 1)).data[0]).toMatchObject({ status: 403, code: 'IpNotAllowed' });

    // Across the account, both applications' refusals together, newest first.
    const account = await call('GET', '/refusals?limit=2', user);
    expect(account.body.data.map((row: { code: string }) => row.code)).toEqual(['IpNotAllowed', 'InvalidSignature']);
    expect(account.body.not_listed).toBe(2);

    // A key that matches no application is nobody's refusal; another account cannot read these.
    expect((await embeddings('sk-not-a-key', { model: 'text-embedding-v4', input: 'x' })).status).toBe(401);
    const stranger = await consoleClient(api.url).register('stranger@example.com');
    expect((await call('GET', `/applications/${appId}/refusals`, stranger)).status).toBe(404);
    expect((await call('GET', `/applications/${appId}/refusals?limit=0`, user)).body.error.param).toBe('limit');
  });

  it('keeps a flood to the last refusals, counting the ones it dropped', async () => {
    const { app_id: appId, api_key: apiKey } = await application();
    const flood = REFUSALS_KEPT + 50;
    for (let sent = 0; sent < flood; sent += 50) {
      await Promise.all(
        Array.from({ length: 50 }, () => postJson(`${api.url}/v1/embeddings`, { model: 'text-embedding-v4' }, apiKey)),
      );
    }
    const listed = await refusals(appId, flood, '?limit=200&offset=900');
    expect(listed.data).toHaveLength(REFUSALS_KEPT - 900);
    expect(listed.not_listed).toBe(50);
  });
});
