import { MAX_API_KEYS_PER_APPLICATION } from '@gateway/contracts';
import { CredentialsService } from '@gateway/tenancy';
import { OpenAiFake } from '../fakes/openai-fake';
import { consoleClient, ConsoleUser } from '../helpers/console';
import { spawnSync } from 'node:child_process';
import { ENTRY_POINTS } from '../../scripts/processes';
import { getJson, processEnv, RunningApi, startApi, testEnv, waitFor, waitUntil } from '../helpers/gateway';

interface KeyView {
  id: string;
  name: string;
  prefix: string;
  status: string;
  expires_at: string | null;
  last_used_at: string | null;
}

describe('named API keys: create, list, revoke, expire, last used, rotate', () => {
  const upstream = new OpenAiFake();
  let api: RunningApi;
  let user: ConsoleUser;
  let appId: string;
  let firstKey: string;
  let env: ReturnType<typeof testEnv>;

  beforeAll(async () => {
    await upstream.start();
    env = testEnv({ UPSTREAM_PRIMARY_BASE_URL: upstream.baseUrl, AUTH_CACHE_TTL_MS: 100, KEY_LAST_USED_FLUSH_MS: 200 });
    api = await startApi(env);
    user = await consoleClient(api.url).register('keys@example.com');
    const created = (await call('POST', '/applications', { name: 'keyed' })).body;
    appId = created.id;
    firstKey = created.credentials.api_key;
  });

  afterAll(async () => {
    await api?.close();
    await upstream.stop();
  });

  const call = (method: string, path: string, body?: unknown, as = user) =>
    consoleClient(api.url).call(method, path, as, body);
  const models = (key: string) => getJson(`${api.url}/v1/models`, key);
  const listKeys = async (): Promise<KeyView[]> => (await call('GET', `/applications/${appId}/keys`)).body.data;

  it('lists the key an application is created with as "default", with a single ellipsis in its prefix', async () => {
    const [key] = await listKeys();
    expect(key).toMatchObject({ name: 'default', status: 'active', expires_at: null, last_used_at: null });
    expect(key.prefix).toBe(`${firstKey.slice(0, 10)}…`);
  });

  it('creates named keys shown once, each working beside the others, and revokes one alone', async () => {
    const expiresAt = new Date(Date.now() + 30 * 86_400_000).toISOString();
    const ci = await call('POST', `/applications/${appId}/keys`, { name: 'ci runner', expires_at: expiresAt });
    expect(ci.status).toBe(201);
    expect(ci.body).toMatchObject({ name: 'ci runner', status: 'active', expires_at: expiresAt });
    expect(ci.body.api_key).toMatch(/^sk-/);
    const prod = (await call('POST', `/applications/${appId}/keys`, { name: '生产' })).body;
    expect(prod.expires_at).toBeNull();
    for (const key of [firstKey, ci.body.api_key, prod.api_key]) expect((await models(key)).status).toBe(200);
    const listed = await listKeys();
    expect(listed.map((key) => key.name)).toEqual(['default', 'ci runner', '生产']);
    expect(JSON.stringify(listed)).not.toContain(ci.body.api_key);

    const revoked = await call('DELETE', `/applications/${appId}/keys/${ci.body.id}`);
    expect(revoked.body).toMatchObject({ id: ci.body.id, status: 'revoked' });
    await waitUntil(async () => (await models(ci.body.api_key)).status === 401, 'the revoked key to be refused');
    expect((await models(firstKey)).status).toBe(200);
    expect((await models(prod.api_key)).status).toBe(200);
    const again = await call('DELETE', `/applications/${appId}/keys/${ci.body.id}`);
    expect(again.status).toBe(404);
    expect(again.body.error).toMatchObject({ code: 'NotFound', param: 'key_id' });
  });

  it('refuses a key the moment it expires, whatever the cache holds', async () => {
    // Issued below the API's one-minute floor, so the test need not wait a minute.
    const expiresAt = new Date(Date.now() + 1_500);
    const { apiKey } = await api.app.get(CredentialsService).issueNamedApiKey(appId, 'brief', expiresAt);
    expect((await models(apiKey)).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, expiresAt.getTime() - Date.now() + 10)));
    const refused = await models(apiKey);
    expect(refused.status).toBe(401);
    expect(refused.body.error.code).toBe('InvalidApiKey');
    expect((await listKeys()).find((key) => key.name === 'brief')?.status).toBe('expired');
  });

  it('records when a key was last used, folded in batches', async () => {
    const before = Date.now();
    expect((await models(firstKey)).status).toBe(200);
    const keys = await waitFor(
      listKeys,
      (list) => list[0].last_used_at !== null && Date.parse(list[0].last_used_at) >= before - 1000,
      'the last-used time to be written',
    );
    expect(Date.parse(keys[0].last_used_at!)).toBeLessThanOrEqual(Date.now());
  });

  it('refuses a bad name, a past or far expiry, and an unknown field, in the error envelope', async () => {
    const cases: [unknown, string][] = [
      [{}, 'name'],
      [{ name: '' }, 'name'],
      [{ name: 'x'.repeat(65) }, 'name'],
      [{ name: 'bad/name' }, 'name'],
      [{ name: ' padded' }, 'name'],
      [{ name: 'ok', expires_at: new Date(Date.now() - 1000).toISOString() }, 'expires_at'],
      [{ name: 'ok', expires_at: new Date(Date.now() + 800 * 86_400_000).toISOString() }, 'expires_at'],
      [{ name: 'ok', expires_at: 'tomorrow' }, 'expires_at'],
      [{ name: 'ok', expires_at: '2027-01-01T00:00:00' }, 'expires_at'],
    ];
    for (const [body, param] of cases) {
      const refused = await call('POST', `/applications/${appId}/keys`, body);
      expect({ body, status: refused.status, param: refused.body.error?.param }).toEqual({ body, status: 400, param });
      expect(refused.body.error.message).toEqual(expect.any(String));
    }
    expect((await call('POST', `/applications/${appId}/keys`, { name: 'ok', scope: 'all' })).status).toBe(400);
  });

  it(`holds at most ${MAX_API_KEYS_PER_APPLICATION} live keys, and another account's application is absent`, async () => {
    const live = (await listKeys()).filter((key) => key.status === 'active').length;
    for (let i = live; i < MAX_API_KEYS_PER_APPLICATION; i++)
      expect((await call('POST', `/applications/${appId}/keys`, { name: `key-${i}` })).status).toBe(201);
    const refused = await call('POST', `/applications/${appId}/keys`, { name: 'one too many' });
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('CeilingExceeded');

    const stranger = await consoleClient(api.url).register('stranger-keys@example.com');
    const [key] = await listKeys();
    for (const [method, path, body] of [
      ['GET', `/applications/${appId}/keys`, undefined],
      ['POST', `/applications/${appId}/keys`, { name: 'mine' }],
      ['DELETE', `/applications/${appId}/keys/${key.id}`, undefined],
    ] as const)
      expect((await call(method, path, body, stranger)).status).toBe(404);
  });

  it('rotates one named key, keeping its name and expiry, while the others keep working', async () => {
    const expiresAt = new Date(Date.now() + 86_400_000).toISOString();
    // The application is at its ceiling after the test above: one of the fill-ins makes room.
    const filler = (await listKeys()).find((key) => key.name === 'key-5')!;
    await call('DELETE', `/applications/${appId}/keys/${filler.id}`);
    const staging = (await call('POST', `/applications/${appId}/keys`, { name: 'staging', expires_at: expiresAt }))
      .body;
    const rotated = await call('POST', `/applications/${appId}/rotate-key`, { key_id: staging.id, grace_seconds: 0 });
    expect(rotated.status).toBe(200);
    await waitUntil(async () => (await models(staging.api_key)).status === 401, 'the rotated key to be refused');
    expect((await models(rotated.body.api_key)).status).toBe(200);
    expect((await models(firstKey)).status).toBe(200);
    const replacement = (await listKeys()).filter((key) => key.name === 'staging' && key.status === 'active');
    expect(replacement).toHaveLength(1);
    expect(replacement[0].expires_at).toBe(expiresAt);
    const unknown = await call('POST', `/applications/${appId}/rotate-key`, { key_id: staging.id });
    expect(unknown.status).toBe(404);
  });

  it('rotates every live key at once with grace, none outliving its own expiry', async () => {
    const keysBefore = (await listKeys()).filter((key) => key.status === 'active');
    const rotated = await call('POST', `/applications/${appId}/rotate-key`, { grace_seconds: 3600 });
    expect(rotated.status).toBe(200);
    const after = await listKeys();
    const limit = Date.now() + 3600_000 + 5_000;
    for (const key of keysBefore) {
      const now = after.find((other) => other.id === key.id)!;
      expect(now.expires_at).not.toBeNull();
      expect(Date.parse(now.expires_at!)).toBeLessThanOrEqual(
        key.expires_at ? Math.min(Date.parse(key.expires_at), limit) : limit,
      );
    }
    expect(after.filter((key) => key.status === 'active' && key.expires_at === null).map((key) => key.name)).toEqual([
      'default',
    ]);
    expect((await models(firstKey)).status).toBe(200);
    expect((await models(rotated.body.api_key)).status).toBe(200);
  });

  it('lists, creates and revokes keys from the operator CLI by the same rules', async () => {
    const gw = (...args: string[]) =>
      spawnSync(process.execPath, [ENTRY_POINTS.cli, ...args], { env: processEnv(env), encoding: 'utf8' });
    const listed = JSON.parse(gw('keys:list', '--app', appId, '--json').stdout) as KeyView[];
    // Ids, names and statuses: a last-used time may be folded in between the two reads.
    const brief = (keys: KeyView[]) => keys.map(({ id, name, status }) => ({ id, name, status }));
    expect(brief(listed)).toEqual(brief(await listKeys()));
    // The rotation above left 21 live keys (a rotation replaces, whatever the count): two make room.
    for (const name of ['key-6', 'key-7']) {
      const key = listed.find((candidate) => candidate.name === name)!;
      expect(gw('keys:revoke', '--app', appId, '--key', key.id).stdout).toContain(`Revoked ${key.id}`);
    }
    const refused = gw('keys:create', '--app', appId, '--name', 'ops', '--expires-at', '2020-01-01T00:00:00Z');
    expect(refused.status).not.toBe(0);
    expect(refused.stderr).toContain('--expires-at must be at least a minute in the future');
    const created = JSON.parse(gw('keys:create', '--app', appId, '--name', 'ops', '--json').stdout);
    expect(created).toMatchObject({ name: 'ops', status: 'active' });
    expect((await models(created.api_key)).status).toBe(200);
    expect(gw('keys:list', '--app', appId).stdout).toMatch(/ops {2}sk-\w{7}… {2}active/);
  });
});
