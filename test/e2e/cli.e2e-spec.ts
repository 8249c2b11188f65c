import { spawnSync } from 'node:child_process';
import { OpenAiFake } from '../fakes/openai-fake';
import { consoleClient } from '../helpers/console';
import { ENTRY_POINTS } from '../../scripts/processes';
import { getJson, postJson, processEnv, RunningApi, startApi, startWorker, testEnv } from '../helpers/gateway';

describe('operator CLI (npm run gw)', () => {
  const upstream = new OpenAiFake();
  let env: ReturnType<typeof testEnv>;
  let api: RunningApi;
  let worker: { close(): Promise<void> };

  const gw = (...args: string[]) =>
    spawnSync(process.execPath, [ENTRY_POINTS.cli, ...args], {
      env: processEnv(env),
      encoding: 'utf8',
    });

  beforeAll(async () => {
    await upstream.start();
    env = testEnv({ UPSTREAM_PRIMARY_BASE_URL: upstream.baseUrl });
    [api, worker] = await Promise.all([startApi(env), startWorker(env)]);
  });

  afterAll(async () => {
    await Promise.all([api?.close(), worker?.close()]);
    await upstream.stop();
  });

  it('creates an application whose printed API key works, lists it and rotates its key', async () => {
    const created = gw('apps:create', '--name', 'from-cli', '--type', 'web', '--daily-limit', '100', '--json');
    expect(created.status).toBe(0);
    const { appId, apiKey, secretKey } = JSON.parse(created.stdout);
    expect(appId).toMatch(/^app_/);
    expect(secretKey).toMatch(/^ss-/);
    expect(
      (await postJson(`${api.url}/v1/embeddings`, { model: 'text-embedding-v4', input: 'cli' }, apiKey)).status,
    ).toBe(200);

    const listed = JSON.parse(gw('apps:list', '--json').stdout);
    expect(listed).toEqual(
      expect.arrayContaining([expect.objectContaining({ appId, name: 'from-cli', type: 'web', dailyCallLimit: 100 })]),
    );

    const rotated = JSON.parse(gw('keys:rotate', '--app', appId, '--json').stdout);
    expect(rotated.apiKey).not.toBe(apiKey);
    expect((await getJson(`${api.url}/v1/models`, rotated.apiKey)).status).toBe(200);
  });

  it('refuses a callback URL the gateway could never deliver to, and creates nothing', () => {
    const refused = gw('apps:create', '--name', 'loopback-hooks', '--callback-url', 'http://127.0.0.1:9/hooks');
    expect(refused.status).toBe(1);
    expect(refused.stderr).toContain('gw: callback_url is refused: 127.0.0.1 is ');
    const listed: { name: string }[] = JSON.parse(gw('apps:list', '--json').stdout);
    expect(listed.map((app) => app.name)).not.toContain('loopback-hooks');
  });

  it('prints a one-time operator setup link while the gateway has no operator, and nothing once it has one', async () => {
    const console = consoleClient(api.url);
    const printed = gw('operators:setup-link', '--if-none', '--url', api.url);
    expect(printed.status).toBe(0);
    const link = printed.stdout.match(/(http\S+)/)![1];
    expect(link).toMatch(new RegExp(`^${api.url}/console/sign-up\\?invitation=[0-9A-Za-z]{32}$`));
    const invitation = new URL(link).searchParams.get('invitation');
    const email = 'root@example.com';
    const password = 'correct horse battery';
    expect((await console.call('POST', '/auth/register', undefined, { email, password, invitation })).status).toBe(202);
    const signedIn = await console.call('POST', '/auth/login', undefined, { email, password });
    expect(signedIn.body.user.role).toBe('admin');
    const again = gw('operators:setup-link', '--if-none');
    expect([again.status, again.stdout]).toEqual([0, '']);
    expect(gw('operators:setup-link', '--hours', '0').stderr).toContain('--hours must be from 1 to 720');
  });

  it('promotes a console account to operator', async () => {
    const console = consoleClient(api.url);
    const member = await console.register('later@example.com');
    expect((await console.call('GET', '/admin/users', member)).status).toBe(403);
    const promoted = gw('users:promote', '--email', 'Later@Example.com');
    expect(promoted.status).toBe(0);
    expect(promoted.stdout).toContain('later@example.com is now an operator');
    expect((await console.call('GET', '/admin/users', member)).status).toBe(200);
    expect(gw('users:promote', '--email', 'nobody@example.com').stderr).toContain('no console account');
  });

  it('explains bad usage with exit code 2', () => {
    const result = gw('apps:create');
    expect(result.status).toBe(2);
    expect(result.stderr).toContain('apps:create needs --name');
  });
});
