import { OpenAiFake } from '../fakes/openai-fake';
import { consoleClient, ConsoleUser } from '../helpers/console';
import { getJson, postJson, RunningApi, startApi, startWorker, testEnv, waitFor, waitUntil } from '../helpers/gateway';

describe('console API: accounts and applications', () => {
  const upstream = new OpenAiFake();
  let api: RunningApi;
  let worker: { close(): Promise<void> };

  beforeAll(async () => {
    await upstream.start();
    const env = testEnv({ UPSTREAM_PRIMARY_BASE_URL: upstream.baseUrl, AUTH_CACHE_TTL_MS: 100, USAGE_FLUSH_MS: 100 });
    [api, worker] = await Promise.all([startApi(env), startWorker(env)]);
  });

  afterAll(async () => {
    await Promise.all([api?.close(), worker?.close()]);
    await upstream.stop();
  });

  const call = (...args: Parameters<ReturnType<typeof consoleClient>['call']>) => consoleClient(api.url).call(...args);

  async function register(email: string): Promise<ConsoleUser> {
    const { registered, ...user } = await consoleClient(api.url).register(email);
    expect(registered.status).toBe(201);
    const setCookie = registered.headers.get('set-cookie')!;
    expect(setCookie).toMatch(/gw_session=[^;]+;.*HttpOnly/i);
    expect(setCookie).toMatch(/SameSite=Lax/i);
    return user;
  }

  const fullApplication = {
    name: 'Shop assistant',
    description: 'Product search for the web shop',
    type: 'web',
    usage_scenario: 'semantic search over the catalogue',
    expected_volume: 20000,
    scope: { capabilities: ['embeddings', 'chat'], models: ['text-embedding-v4', 'x-chat'] },
    daily_call_limit: 1000,
    concurrency_limit: 5,
    ip_whitelist: ['127.0.0.1', '10.0.0.0/8', '2001:db8::/32'],
    // A public address: the callback URL is checked when saved, and a name needs DNS, which tests may not have.
    callback_url: 'https://93.184.215.14/hooks/gateway',
  };

  it('registers, signs in and out, and refuses a wrong password or a taken email', async () => {
    const user = await register('ada@example.com');
    expect((await call('GET', '/auth/me', user)).body.user.email).toBe('ada@example.com');
    expect(
      (await call('POST', '/auth/register', undefined, { email: 'ADA@example.com', password: 'another password' })).body
        .error.code,
    ).toBe('AlreadyExists');
    expect(
      (await call('POST', '/auth/login', undefined, { email: 'ada@example.com', password: 'wrong password!' })).body
        .error.code,
    ).toBe('InvalidCredentials');
    const login = await call('POST', '/auth/login', undefined, {
      email: 'ada@example.com',
      password: 'correct horse battery',
    });
    expect(login.status).toBe(200);
    expect((await call('POST', '/auth/logout', user)).status).toBe(204);
    // Signed out is an answer, not an error: the console's signed-out pages log no failed request.
    const signedOut = await call('GET', '/auth/me', user);
    expect({ status: signedOut.status, body: signedOut.body }).toEqual({ status: 200, body: { user: null } });
    expect(
      (await call('POST', '/auth/register', undefined, { email: 'not-an-email', password: 'correct horse battery' }))
        .body.error.param,
    ).toBe('email');
  });

  it('creates an application with every console field and shows its credentials once', async () => {
    const user = await register('grace@example.com');
    const created = await call('POST', '/applications', user, fullApplication);
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      name: 'Shop assistant',
      type: 'web',
      usage_scenario: 'semantic search over the catalogue',
      expected_volume: 20000,
      scope: fullApplication.scope,
      daily_call_limit: 1000,
      concurrency_limit: 5,
      ip_whitelist: fullApplication.ip_whitelist,
      callback_url: fullApplication.callback_url,
      status: 'active',
    });
    const { app_id: appId, api_key: apiKey, secret_key: secretKey } = created.body.credentials;
    expect(apiKey).toMatch(/^sk-/);
    expect(secretKey).toMatch(/^ss-/);

    const fetched = await call('GET', `/applications/${appId}`, user);
    expect(fetched.body.credentials).toBeUndefined();
    expect(JSON.stringify(fetched.body)).not.toContain(apiKey.slice(12));
    expect(JSON.stringify(fetched.body)).not.toContain(secretKey);
    expect(fetched.body.api_keys[0].prefix).toBe(`${apiKey.slice(0, 10)}…`);

    const response = await postJson(`${api.url}/v1/embeddings`, { model: 'text-embedding-v4', input: 'works' }, apiKey);
    expect(response.status).toBe(200);
    expect(response.headers.get('x-ratelimit-limit-requests')).toBe('1000');
  });

  it.each([
    ['a missing name', { ...fullApplication, name: undefined }, 'name'],
    ['an unknown type', { ...fullApplication, type: 'desktop' }, 'type'],
    ['a bad IP whitelist entry', { ...fullApplication, ip_whitelist: ['10.0.0.0/33'] }, 'ip_whitelist'],
    ['a negative limit', { ...fullApplication, daily_call_limit: -1 }, 'daily_call_limit'],
    ['an unknown capability', { ...fullApplication, scope: { capabilities: ['video'] } }, 'scope.capabilities'],
    ['a callback that is not http(s)', { ...fullApplication, callback_url: 'ftp://example.com/x' }, 'callback_url'],
    ['an unknown field', { ...fullApplication, owner: 'someone-else' }, 'owner'],
  ])('refuses %s with 400 and the field at fault', async (_name, body, param) => {
    const user = await register(`validation-${param}@example.com`);
    const response = await call('POST', '/applications', user, body);
    expect(response.status).toBe(400);
    expect(response.body.error.param).toBe(param);
  });

  it('refuses a model outside the catalog in the scope', async () => {
    const user = await register('scope@example.com');
    const response = await call('POST', '/applications', user, { name: 'x', scope: { models: ['no-such-model'] } });
    expect(response.body.error).toMatchObject({ code: 'ModelNotFound', param: 'scope.models[0]' });
  });

  it('refuses a state-changing request without the CSRF token, and any request without a session', async () => {
    const user = await register('csrf@example.com');
    const refused = await call('POST', '/applications', user, { name: 'x' }, false);
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('CsrfRejected');
    expect((await call('GET', '/applications')).status).toBe(401);
  });

  it("keeps every route of another user's application invisible (404)", async () => {
    const owner = await register('owner@example.com');
    const stranger = await register('stranger@example.com');
    const appId = (await call('POST', '/applications', owner, { name: 'private' })).body.id;
    const attempts = [
      await call('GET', `/applications/${appId}`, stranger),
      await call('PATCH', `/applications/${appId}`, stranger, { name: 'mine now' }),
      await call('POST', `/applications/${appId}/rotate-key`, stranger, {}),
      await call('POST', `/applications/${appId}/reset-secret`, stranger),
      await call('GET', `/applications/${appId}/usage`, stranger),
      await call('DELETE', `/applications/${appId}`, stranger),
    ];
    attempts.forEach((attempt) => {
      expect(attempt.status).toBe(404);
      expect(attempt.body.error.code).toBe('NotFound');
    });
    expect((await call('GET', '/applications', stranger)).body.data).toEqual([]);
    expect((await call('GET', `/applications/${appId}`, owner)).body).toMatchObject({
      name: 'private',
      status: 'active',
    });
  });

  it('updates settings, rotates the key, resets the secret and revokes', async () => {
    const user = await register('lifecycle@example.com');
    const created = (await call('POST', '/applications', user, { name: 'cycle' })).body;
    const appId = created.id;
    const oldKey = created.credentials.api_key;
    expect(
      (await call('PATCH', `/applications/${appId}`, user, { daily_call_limit: 7, description: 'updated' })).body,
    ).toMatchObject({ daily_call_limit: 7, description: 'updated', name: 'cycle' });

    const rotated = await call('POST', `/applications/${appId}/rotate-key`, user, { grace_seconds: 0 });
    expect(rotated.body.api_key).not.toBe(oldKey);
    await waitUntil(
      async () => (await getJson(`${api.url}/v1/models`, oldKey)).status === 401,
      'the old key to stop working',
    );
    expect((await getJson(`${api.url}/v1/models`, rotated.body.api_key)).status).toBe(200);

    // With a grace period the previous key keeps working for a while next to the new one.
    const graced = await call('POST', `/applications/${appId}/rotate-key`, user, { grace_seconds: 600 });
    expect(graced.body.previous_key_valid_for_seconds).toBe(600);
    await new Promise((r) => setTimeout(r, 150)); // past AUTH_CACHE_TTL_MS
    expect((await getJson(`${api.url}/v1/models`, rotated.body.api_key)).status).toBe(200);
    expect((await getJson(`${api.url}/v1/models`, graced.body.api_key)).status).toBe(200);
    const keys = (await call('GET', `/applications/${appId}`, user)).body.api_keys;
    expect(keys.filter((k: { expires_at: string | null }) => k.expires_at !== null)).toHaveLength(1);

    const reset = await call('POST', `/applications/${appId}/reset-secret`, user);
    expect(reset.body.secret_key).toMatch(/^ss-/);
    expect(reset.body.secret_key).not.toBe(created.credentials.secret_key);

    expect((await call('DELETE', `/applications/${appId}`, user)).body.status).toBe('revoked');
    for (const key of [rotated.body.api_key, graced.body.api_key]) {
      await waitUntil(
        async () => (await getJson(`${api.url}/v1/models`, key)).status === 401,
        'the revoked keys to stop working',
      );
    }
    const revokedKeys = (await call('GET', `/applications/${appId}`, user)).body.api_keys;
    expect(revokedKeys.every((k: { status: string }) => k.status !== 'active')).toBe(true);
  });

  it('hides a deleted application from the list unless asked, and refuses to change it (409)', async () => {
    const user = await register('deleted@example.com');
    const kept = (await call('POST', '/applications', user, { name: 'kept' })).body.id;
    const gone = (await call('POST', '/applications', user, { name: 'gone' })).body.id;
    expect((await call('DELETE', `/applications/${gone}`, user)).status).toBe(200);
    const ids = (path: string) =>
      call('GET', path, user).then(({ body }) => body.data.map((app: { id: string }) => app.id));
    expect(await ids('/applications')).toEqual([kept]);
    expect(await ids('/applications?status=all')).toEqual([kept, gone]);
    expect((await call('GET', '/applications?status=deleted', user)).body.error).toMatchObject({
      code: 'InvalidParameter',
      param: 'status',
    });
    for (const [method, path, body] of [
      ['PATCH', `/applications/${gone}`, { description: 'still here?' }],
      ['POST', `/applications/${gone}/rotate-key`, { grace_seconds: 0 }],
      ['POST', `/applications/${gone}/reset-secret`, undefined],
    ] as const) {
      const refused = await call(method, path, user, body);
      expect([refused.status, refused.body.error.code]).toEqual([409, 'ApplicationRevoked']);
    }
    expect((await call('GET', `/applications/${gone}`, user)).body).toMatchObject({
      status: 'revoked',
      description: '',
    });
  });

  it('serves usage series for charts', async () => {
    const user = await register('charts@example.com');
    const created = (await call('POST', '/applications', user, { name: 'charts' })).body;
    await postJson(
      `${api.url}/v1/embeddings`,
      { model: 'text-embedding-v4', input: 'count this' },
      created.credentials.api_key,
    );
    const day = new Date().toISOString().slice(0, 10);
    const series = await waitFor(
      () => call('GET', `/applications/${created.id}/usage?from=${day}&to=${day}`, user),
      (answer) => answer.body.data.length > 0,
      'the usage to be rolled up',
    );
    expect(series.body.data[0]).toMatchObject({ day, model: 'text-embedding-v4', calls: 1, errors: 0 });
    expect((await call('GET', `/applications/${created.id}/usage?from=2026-13-01`, user)).body.error.param).toBe(
      'from',
    );
  });
});
