import { getConnectionToken } from '@nestjs/mongoose';
import { Connection } from 'mongoose';
import { spawnSync } from 'node:child_process';
import { ENTRY_POINTS } from '../../scripts/processes';
import { consoleClient, ConsoleUser, createOperator } from '../helpers/console';
import { processEnv, RunningApi, startApi, testEnv } from '../helpers/gateway';

interface ListedRecord {
  id: string;
  action: string;
  actor: { id: string | null; email: string | null };
  address: string;
  app_id: string | null;
  user_id: string | null;
  changes: Record<string, { before: unknown; after: unknown }>;
  created_at: string;
}

describe('audit log of access changes', () => {
  let env: ReturnType<typeof testEnv>;
  let api: RunningApi;
  let operator: ConsoleUser & { id: string };
  let owner: ConsoleUser & { id: string };
  let other: ConsoleUser & { id: string };
  let appId: string;
  let otherAppId: string;
  /** Every key and Secret Key handed out in this suite: none may appear in a stored record. */
  const secrets: string[] = [];

  const gw = (...args: string[]) =>
    spawnSync(process.execPath, [ENTRY_POINTS.cli, ...args], { env: processEnv(env), encoding: 'utf8' });
  const call = (...args: Parameters<ReturnType<typeof consoleClient>['call']>) => consoleClient(api.url).call(...args);

  async function register(email: string) {
    const { registered, ...user } = await consoleClient(api.url).register(email);
    expect(registered.status).toBe(201);
    return { ...user, id: registered.body.user.id as string };
  }

  /** Every record the user may see with these filters, following `next` two at a time. */
  async function listAll(user: ConsoleUser, filters = ''): Promise<ListedRecord[]> {
    const records: ListedRecord[] = [];
    let cursor: string | null = null;
    do {
      const page = await call(
        'GET',
        `/audit?limit=2${filters}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
        user,
      );
      expect(page.status).toBe(200);
      expect(page.body.data.length).toBeLessThanOrEqual(2);
      records.push(...page.body.data);
      cursor = page.body.next;
    } while (cursor);
    return records;
  }

  async function only(user: ConsoleUser, action: string, app: string): Promise<ListedRecord> {
    const records = await listAll(user, `&action=${action}&app_id=${app}`);
    expect(records).toHaveLength(1);
    return records[0];
  }

  beforeAll(async () => {
    env = testEnv();
    api = await startApi(env);
    operator = await createOperator(api, 'ops@example.com');
    owner = await register('owner@example.com');
    other = await register('other@example.com');
    const created = await call('POST', '/applications', owner, {
      name: 'Shop',
      type: 'web',
      daily_call_limit: 1000,
      ip_whitelist: ['127.0.0.1'],
    });
    expect(created.status).toBe(201);
    appId = created.body.id;
    secrets.push(created.body.credentials.api_key, created.body.credentials.secret_key);
    const others = await call('POST', '/applications', other, { name: 'Elsewhere', type: 'backend' });
    otherAppId = others.body.id;
    secrets.push(others.body.credentials.api_key, others.body.credentials.secret_key);
  });

  afterAll(async () => {
    await api?.close();
  });

  it('records a sign-in and a failed sign-in with the email and the address, not the password', async () => {
    const failed = await call('POST', '/auth/login', undefined, {
      email: 'OPS@example.com',
      password: 'not the password',
    });
    expect(failed.body.error.code).toBe('InvalidCredentials');
    const signedIn = await call('POST', '/auth/login', undefined, {
      email: 'owner@example.com',
      password: 'correct horse battery',
    });
    expect(signedIn.status).toBe(200);

    const records = await listAll(operator, '&action=auth.sign_in_failed');
    expect(records).toEqual([
      expect.objectContaining({
        actor: { id: null, email: 'ops@example.com' },
        address: '127.0.0.1',
        changes: { outcome: { before: null, after: 'InvalidCredentials' } },
      }),
    ]);
    const signIns = await listAll(operator, '&action=auth.sign_in');
    expect(signIns).toEqual([
      expect.objectContaining({
        actor: { id: owner.id, email: 'owner@example.com' },
        user_id: owner.id,
        address: '127.0.0.1',
      }),
      // The operator's own, after signing up through the setup link.
      expect.objectContaining({ actor: { id: operator.id, email: 'ops@example.com' }, user_id: operator.id }),
    ]);
  });

  it('records an application created with its settings and its first key by display prefix', async () => {
    const record = await only(owner, 'application.create', appId);
    expect(record.actor).toEqual({ id: owner.id, email: 'owner@example.com' });
    expect(record.address).toBe('127.0.0.1');
    expect(record.changes).toMatchObject({
      name: { before: null, after: 'Shop' },
      daily_call_limit: { before: null, after: 1000 },
      ip_whitelist: { before: null, after: ['127.0.0.1'] },
      status: { before: null, after: 'active' },
      api_keys: { before: [], after: [{ prefix: `${secrets[0].slice(0, 10)}…`, status: 'active', expires_at: null }] },
    });
  });

  it('records whitelist, callback, limit and budget changes as before → after of the changed fields only', async () => {
    const updated = await call('PATCH', `/applications/${appId}`, owner, {
      ip_whitelist: ['10.0.0.0/8'],
      callback_url: 'https://93.184.215.14/hooks/gateway',
      daily_call_limit: 500,
      token_quota: 100000,
      name: 'Shop',
    });
    expect(updated.status).toBe(200);
    const record = await only(owner, 'application.update', appId);
    expect(record.changes).toEqual({
      ip_whitelist: { before: ['127.0.0.1'], after: ['10.0.0.0/8'] },
      callback_url: { before: null, after: 'https://93.184.215.14/hooks/gateway' },
      daily_call_limit: { before: 1000, after: 500 },
      token_quota: { before: 0, after: 100000 },
    });
  });

  it('records a key rotation and a Secret Key reset without either value', async () => {
    const rotated = await call('POST', `/applications/${appId}/rotate-key`, owner, { grace_seconds: 60 });
    expect(rotated.status).toBe(200);
    secrets.push(rotated.body.api_key);
    const rotation = await only(owner, 'key.rotate', appId);
    const before = rotation.changes.api_keys.before as { prefix: string; status: string; expires_at: string | null }[];
    const after = rotation.changes.api_keys.after as { prefix: string; status: string; expires_at: string | null }[];
    expect(before).toEqual([{ prefix: `${secrets[0].slice(0, 10)}…`, status: 'active', expires_at: null }]);
    expect(after).toEqual([
      { prefix: `${secrets[0].slice(0, 10)}…`, status: 'active', expires_at: expect.any(String) },
      { prefix: `${rotated.body.api_key.slice(0, 10)}…`, status: 'active', expires_at: null },
    ]);

    const reset = await call('POST', `/applications/${appId}/reset-secret`, owner);
    expect(reset.status).toBe(200);
    secrets.push(reset.body.secret_key);
    expect((await only(owner, 'secret.reset', appId)).changes).toEqual({
      secret_key: { before: 'previous', after: 'new' },
    });
  });

  it("records an operator's ceiling, role and disable changes on the account acted on", async () => {
    expect(
      (await call('PATCH', `/admin/users/${other.id}`, operator, { ceilings: { max_daily_call_limit: 5000 } })).status,
    ).toBe(200);
    expect((await call('PATCH', `/admin/users/${other.id}`, operator, { role: 'admin' })).status).toBe(200);
    expect((await call('PATCH', `/admin/users/${other.id}`, operator, { role: 'user', disabled: true })).status).toBe(
      200,
    );
    const records = await listAll(operator, '&action=user.update');
    expect(records.map((record) => [record.user_id, record.actor.id, record.address, record.changes])).toEqual([
      [
        other.id,
        operator.id,
        '127.0.0.1',
        { role: { before: 'admin', after: 'user' }, disabled: { before: false, after: true } },
      ],
      [other.id, operator.id, '127.0.0.1', { role: { before: 'user', after: 'admin' } }],
      [
        other.id,
        operator.id,
        '127.0.0.1',
        {
          ceilings: {
            before: { max_applications: null, max_daily_call_limit: null, max_token_quota: null, budget: null },
            after: { max_applications: null, max_daily_call_limit: 5000, max_token_quota: null, budget: null },
          },
        },
      ],
    ]);
  });

  it('records an application deleted: revoked, and its keys with it', async () => {
    expect((await call('DELETE', `/applications/${appId}`, owner)).status).toBe(200);
    const record = await only(owner, 'application.delete', appId);
    expect(record.changes.status).toEqual({ before: 'active', after: 'revoked' });
    expect((record.changes.api_keys.after as { status: string }[]).map((key) => key.status)).toEqual([
      'revoked',
      'revoked',
    ]);
  });

  it("shows an owner only their applications' records and an operator every record", async () => {
    const mine = await listAll(owner);
    expect(mine.map((record) => record.action)).toEqual([
      'application.delete',
      'secret.reset',
      'key.rotate',
      'application.update',
      'application.create',
    ]);
    expect(new Set(mine.map((record) => record.app_id))).toEqual(new Set([appId]));
    const notMine = await call('GET', `/audit?app_id=${otherAppId}`, owner);
    expect(notMine.status).toBe(404);
    expect(notMine.body.error.code).toBe('NotFound');

    const everything = await listAll(operator);
    expect(everything.map((record) => record.action).sort()).toEqual(
      [
        'application.create',
        'application.create',
        'application.update',
        'key.rotate',
        'secret.reset',
        'user.update',
        'user.update',
        'user.update',
        'application.delete',
        'auth.sign_in',
        'auth.sign_in',
        'auth.sign_in_failed',
      ].sort(),
    );
    expect((await listAll(operator, `&app_id=${otherAppId}`)).map((record) => record.action)).toEqual([
      'application.create',
    ]);
  });

  it('refuses a malformed filter or cursor with the error envelope', async () => {
    const badAction = await call('GET', '/audit?action=drop%20table', owner);
    expect([badAction.status, badAction.body.error.param]).toEqual([400, 'action']);
    const badCursor = await call('GET', '/audit?cursor=nonsense', owner);
    expect([badCursor.status, badCursor.body.error.param]).toEqual([400, 'cursor']);
    expect((await call('GET', '/audit')).status).toBe(401);
  });

  it('exports JSON lines from the CLI, records what the CLI changes as `cli`, and filters by application', async () => {
    const created = gw('apps:create', '--name', 'from-cli', '--json');
    expect(created.status).toBe(0);
    const cliApp = JSON.parse(created.stdout);
    secrets.push(cliApp.apiKey, cliApp.secretKey);
    const rotated = gw('keys:rotate', '--app', cliApp.appId, '--json');
    secrets.push(JSON.parse(rotated.stdout).apiKey);

    const exported = gw('audit', '--since', new Date().toISOString().slice(0, 10), '--app', cliApp.appId);
    expect(exported.status).toBe(0);
    const lines = exported.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as ListedRecord);
    expect(lines.map((record) => [record.action, record.actor, record.address, record.app_id])).toEqual([
      ['application.create', { id: 'cli', email: null }, 'cli', cliApp.appId],
      ['key.rotate', { id: 'cli', email: null }, 'cli', cliApp.appId],
    ]);

    const all = gw('audit').stdout.trim().split('\n');
    expect(all).toHaveLength(14);
    // The oldest: the operator's sign-in after signing up through the setup link.
    expect(JSON.parse(all[0]).action).toBe('auth.sign_in');
    expect(gw('audit', '--since', 'yesterday').status).toBe(2);
  });

  it('never stores a key, a Secret Key or a password hash in a record or its listing rows', async () => {
    const db = api.app.get<Connection>(getConnectionToken()).db!;
    const records = await db.collection('audit_log').find().toArray();
    const rows = await db
      .collection('feed_rows')
      .find()
      .toArray()
      .then((all) => all.filter((row) => String(row._id).startsWith('audit-')));
    expect(records).toHaveLength(14);
    expect(rows.length).toBeGreaterThanOrEqual(14 * 2);
    const hashes = (await db.collection('users').find().toArray()).map((user) => String(user.passwordHash));
    const stored = JSON.stringify([records, rows]);
    expect(secrets).toHaveLength(9);
    for (const value of [...secrets, ...hashes, 'correct horse battery', 'not the password'])
      expect(stored.includes(value)).toBe(false);
    // The values themselves, not only their text: every key and Secret Key of this suite is well formed.
    for (const secret of secrets) expect(secret).toMatch(/^(sk|ss)-[0-9A-Za-z]{40,}$/);
  });
});
