import { QueueName } from '@gateway/queue';
import { getQueueToken } from '@nestjs/bullmq';
import { Queue, Worker } from 'bullmq';
import Redis from 'ioredis';
import { randomBase62 } from '@gateway/common';
import { InvitationsRepository, UsersRepository } from '@gateway/db';
import { invitationHash, OperatorSetup } from '@gateway/tenancy';
import { consoleClient, ConsoleUser, createOperator } from '../helpers/console';
import { getJson, RunningApi, startApi, testEnv, waitUntil } from '../helpers/gateway';

const PASSWORD = 'correct horse battery';

describe('console operators: the first operator, invitations, ceilings and disabled accounts', () => {
  let api: RunningApi;
  let console: ReturnType<typeof consoleClient>;

  beforeAll(async () => {
    api = await startApi(testEnv({ CONSOLE_SIGNUP: 'invite', AUTH_CACHE_TTL_MS: 100 }));
    console = consoleClient(api.url);
  });

  afterAll(async () => {
    await api?.close();
  });

  async function signUp(email: string, invitation?: string) {
    const registered = await console.call('POST', '/auth/register', undefined, {
      email,
      password: PASSWORD,
      ...(invitation ? { invitation } : {}),
    });
    const user: ConsoleUser = {
      cookie: (registered.headers.get('set-cookie') ?? '').split(';')[0],
      csrf: registered.body?.csrf_token,
    };
    return { registered, user };
  }

  let operator: ConsoleUser;
  let member: ConsoleUser;
  let memberId: string;

  it('makes no one the operator by being first to sign up, however many sign up at the same moment', async () => {
    const [a, b] = await Promise.all([signUp('first@example.com'), signUp('second@example.com')]);
    for (const { registered } of [a, b]) {
      expect(registered.status).toBe(403);
      expect(registered.body.error).toMatchObject({ code: 'InvalidInvitation', param: 'invitation' });
    }
    // Where anyone may sign up, both are ordinary accounts.
    const open = await startApi(testEnv({ CONSOLE_SIGNUP: 'open' }));
    try {
      const client = consoleClient(open.url);
      const both = await Promise.all([client.register('first@example.com'), client.register('second@example.com')]);
      expect(both.map(({ registered }) => [registered.status, registered.body.user.role])).toEqual([
        [201, 'user'],
        [201, 'user'],
      ]);
      expect((await client.call('GET', '/admin/users', both[0])).status).toBe(403);
    } finally {
      await open.close();
    }
  });

  it('makes the operator through a one-time setup link: used once, the newest only, refused once expired', async () => {
    const setup = api.app.get(OperatorSetup);
    expect(await setup.hasOperator()).toBe(false);
    const token = (link: string) => new URL(link).searchParams.get('invitation')!;
    const older = token((await setup.issueLink(api.url)).link);
    const { link, expiresAt } = await setup.issueLink(api.url);
    expect(link).toMatch(new RegExp(`^${api.url}/console/sign-up\\?invitation=[0-9A-Za-z]{32}$`));
    expect(expiresAt.getTime() - Date.now()).toBeGreaterThan(23 * 3_600_000);
    // A newer link revokes the older one.
    expect((await signUp('ops@example.com', older)).registered.body.error.code).toBe('InvalidInvitation');

    // Two sign-ups with the same link at the same moment: one account is made.
    const [a, b] = await Promise.all([
      signUp('ops@example.com', token(link)),
      signUp('rival@example.com', token(link)),
    ]);
    expect([a.registered.status, b.registered.status].sort()).toEqual([202, 403]);
    const winner = a.registered.status === 202 ? 'ops@example.com' : 'rival@example.com';
    const signedIn = await console.call('POST', '/auth/login', undefined, { email: winner, password: PASSWORD });
    expect(signedIn.body.user.role).toBe('admin');
    operator = { cookie: (signedIn.headers.get('set-cookie') ?? '').split(';')[0], csrf: signedIn.body.csrf_token };
    expect((await console.call('GET', '/admin/users', operator)).status).toBe(200);
    expect(await setup.hasOperator()).toBe(true);

    // Used, it is refused; so is an expired one.
    const used = await signUp('late@example.com', token(link));
    expect(used.registered.status).toBe(403);
    expect(used.registered.body.error).toMatchObject({ code: 'InvalidInvitation', param: 'invitation' });
    const expired = randomBase62(32);
    await api.app.get(InvitationsRepository).create({
      _id: invitationHash(expired),
      createdBy: 'cli',
      role: 'admin',
      expiresAt: new Date(Date.now() - 1000),
    });
    expect((await signUp('late@example.com', expired)).registered.body.error.code).toBe('InvalidInvitation');
    expect(
      (await console.call('POST', '/auth/login', undefined, { email: 'late@example.com', password: PASSWORD })).status,
    ).toBe(401);
  });

  it("admits later accounts with an operator's invitation only: single use, for its email", async () => {
    const invited = await console.call('POST', '/admin/invitations', operator, {
      email: 'Member@Example.com',
      expires_in_hours: 1,
    });
    expect(invited.status).toBe(201);
    expect(invited.body).toMatchObject({
      email: 'member@example.com',
      invitation: expect.stringMatching(/^[0-9A-Za-z]{32}$/),
    });
    const token = invited.body.invitation;

    expect((await signUp('stranger@example.com', token)).registered.body.error.code).toBe('InvalidInvitation');
    expect((await signUp('member@example.com', 'x'.repeat(32))).registered.body.error.code).toBe('InvalidInvitation');
    // An invited sign-up opens no session (it answers alike for a taken email): the new account signs in.
    const joined = await signUp('member@example.com', token);
    expect(joined.registered.status).toBe(202);
    const signedIn = await console.call('POST', '/auth/login', undefined, {
      email: 'member@example.com',
      password: PASSWORD,
    });
    expect(signedIn.body.user.role).toBe('user');
    member = { cookie: (signedIn.headers.get('set-cookie') ?? '').split(';')[0], csrf: signedIn.body.csrf_token };
    memberId = signedIn.body.user.id;
    const again = await signUp('member2@example.com', token);
    expect(again.registered.status).toBe(403);

    // Operators' pages are closed to users.
    const forbidden = await console.call('GET', '/admin/users', member);
    expect(forbidden.status).toBe(403);
    expect(forbidden.body.error.code).toBe('OperatorOnly');
    expect((await console.call('POST', '/admin/invitations', member, {})).status).toBe(403);
  });

  it('lists invitations with their chosen expiry, revokes one, and says the sign-up policy', async () => {
    const issued = await console.call('POST', '/admin/invitations', operator, { expires_in_hours: 5 });
    expect(issued.body.id).toMatch(/^[0-9a-f]{64}$/);
    const listed = await console.call('GET', '/admin/invitations', operator);
    expect(listed.status).toBe(200);
    const row = listed.body.data.find((invitation: { id: string }) => invitation.id === issued.body.id);
    expect(row).toMatchObject({ email: null, role: 'user', expired: false, expires_at: issued.body.expires_at });
    // In minutes: the expiry and the creation time are taken a moment apart.
    expect(Math.round((Date.parse(row.expires_at) - Date.parse(row.created_at)) / 60_000)).toBe(300);
    const revoked = await console.call('DELETE', `/admin/invitations/${issued.body.id}`, operator);
    expect(revoked.body).toEqual({ id: issued.body.id, status: 'revoked' });
    expect((await signUp('revoked@example.com', issued.body.invitation)).registered.status).toBe(403);
    expect((await console.call('DELETE', `/admin/invitations/${issued.body.id}`, operator)).status).toBe(404);
    expect((await console.call('GET', '/admin/signup-policy', operator)).body).toEqual({ signup: 'invite' });
    expect((await console.call('GET', '/admin/invitations', member)).status).toBe(403);
  });

  it("enforces the ceilings an operator sets on a user's applications", async () => {
    const set = await console.call('PATCH', `/admin/users/${memberId}`, operator, {
      ceilings: { max_applications: 1, max_daily_call_limit: 1000, max_token_quota: 50000 },
    });
    expect(set.status).toBe(200);
    expect(set.body.ceilings).toEqual({
      max_applications: 1,
      max_daily_call_limit: 1000,
      max_token_quota: 50000,
      budget: null,
    });

    const tooHigh = await console.call('POST', '/applications', member, { name: 'greedy', daily_call_limit: 5000 });
    expect(tooHigh.status).toBe(403);
    expect(tooHigh.body.error).toMatchObject({ code: 'CeilingExceeded', param: 'daily_call_limit' });
    const created = await console.call('POST', '/applications', member, { name: 'modest' });
    expect(created.status).toBe(201);
    // Unset limits take the ceiling rather than unlimited.
    expect(created.body).toMatchObject({ daily_call_limit: 1000, token_quota: 50000 });
    const second = await console.call('POST', '/applications', member, { name: 'another' });
    expect(second.status).toBe(403);
    expect(second.body.error.code).toBe('CeilingExceeded');
    const unlimited = await console.call('PATCH', `/applications/${created.body.id}`, member, { token_quota: 0 });
    expect(unlimited.status).toBe(403);
    expect(unlimited.body.error).toMatchObject({ code: 'CeilingExceeded', param: 'token_quota' });

    const users = await console.call('GET', '/admin/users', operator);
    expect(users.body.data.find((user: { id: string }) => user.id === memberId)).toMatchObject({
      email: 'member@example.com',
      applications: 1,
      disabled: false,
    });
    const apps = await console.call('GET', '/admin/applications', operator);
    expect(apps.body.data).toEqual([
      expect.objectContaining({ name: 'modest', owner_id: memberId, owner_email: 'member@example.com' }),
    ]);
    expect(apps.body.next).toBeNull();
    const usage = await console.call('GET', `/admin/users/${memberId}/usage`, operator);
    expect(usage.body).toMatchObject({ user_id: memberId, total: { calls: 0, cost: '0' } });
    expect(usage.body.by_application).toEqual([expect.objectContaining({ app_id: created.body.id, calls: 0 })]);
    expect((await console.call('GET', '/admin/users/nobody/usage', operator)).status).toBe(404);
  });

  it('keeps the other ceilings when one is set, and lifts only the one sent as null', async () => {
    const path = `/admin/users/${memberId}`;
    await console.call('PATCH', path, operator, { ceilings: { max_daily_call_limit: 2000 } });
    const second = await console.call('PATCH', path, operator, { ceilings: { max_applications: 3 } });
    expect(second.status).toBe(200);
    expect(second.body.ceilings).toEqual({
      max_applications: 3,
      max_daily_call_limit: 2000,
      max_token_quota: 50000,
      budget: null,
    });
    const lifted = await console.call('PATCH', path, operator, { ceilings: { max_token_quota: null } });
    expect(lifted.body.ceilings).toEqual({
      max_applications: 3,
      max_daily_call_limit: 2000,
      max_token_quota: null,
      budget: null,
    });
    const listed = await console.call('GET', '/admin/users', operator);
    expect(listed.body.data.find((user: { id: string }) => user.id === memberId).ceilings).toEqual(
      lifted.body.ceilings,
    );
    const negative = await console.call('PATCH', path, operator, { ceilings: { max_daily_call_limit: -1 } });
    expect(negative.status).toBe(400);
    expect(negative.body.error).toMatchObject({ code: 'InvalidParameter' });
  });

  it('disables an account: its session, its sign-in and its API keys stop working', async () => {
    const created = await console.call('GET', '/applications', member);
    const apiKey = await rotatedKey(created.body.data[0].id);
    expect((await getJson(`${api.url}/v1/models`, apiKey)).status).toBe(200);

    expect((await console.call('PATCH', `/admin/users/${memberId}`, operator, { disabled: true })).body.disabled).toBe(
      true,
    );
    await waitUntil(
      async () => (await getJson(`${api.url}/v1/models`, apiKey)).status === 401,
      "the disabled account's key to stop working",
    );
    expect((await console.call('GET', '/applications', member)).status).toBe(401);
    const login = await console.call('POST', '/auth/login', undefined, {
      email: 'member@example.com',
      password: PASSWORD,
    });
    expect(login.status).toBe(403);
    expect(login.body.error.code).toBe('AccountDisabled');

    // An operator cannot lock themselves out.
    const me = (await console.call('GET', '/auth/me', operator)).body.user.id;
    const self = await console.call('PATCH', `/admin/users/${me}`, operator, { disabled: true });
    expect(self.status).toBe(400);

    await console.call('PATCH', `/admin/users/${memberId}`, operator, { disabled: false });
    await waitUntil(
      async () => (await getJson(`${api.url}/v1/models`, apiKey)).status === 200,
      "the enabled account's key to work again",
    );
    // Enabled again, the account signs in afresh: the sessions it had stay over.
    expect((await console.call('GET', '/applications', member)).status).toBe(401);
    const again = await console.call('POST', '/auth/login', undefined, {
      email: 'member@example.com',
      password: PASSWORD,
    });
    expect(again.status).toBe(200);
    member = { cookie: (again.headers.get('set-cookie') ?? '').split(';')[0], csrf: again.body.csrf_token };
    expect((await console.call('GET', '/applications', member)).status).toBe(200);
  });

  it('refuses a common password or the email as a password', async () => {
    const client = consoleClient(api.url);
    for (const password of ['password123', 'Qwertyuiop', 'iloveyou12']) {
      const refused = await client.call('POST', '/auth/register', undefined, { email: 'weak@example.com', password });
      expect(refused.status).toBe(400);
      expect(refused.body.error).toMatchObject({
        code: 'WeakPassword',
        param: 'password',
        message: expect.stringContaining('most common'),
      });
    }
    const own = await client.call('POST', '/auth/register', undefined, {
      email: 'weakling@example.com',
      password: 'weakling@example.com',
    });
    expect(own.body.error).toMatchObject({ code: 'WeakPassword', param: 'password' });
  });

  it('limits failed sign-ins per account, then per address, with Retry-After', async () => {
    const limited = await startApi(testEnv({ CONSOLE_SIGNUP: 'open' }));
    try {
      const client = consoleClient(limited.url);
      const signIn = (email: string, password: string) =>
        client.call('POST', '/auth/login', undefined, { email, password });
      await client.register('target@example.com');
      for (let i = 0; i < 10; i++) expect((await signIn('target@example.com', 'wrong password!')).status).toBe(401);
      const locked = await signIn('target@example.com', PASSWORD);
      expect(locked.status).toBe(429);
      expect(locked.headers.get('retry-after')).toBe('900');
      // Spread over many accounts, the address runs out at 50 failures (10 above).
      for (let i = 0; i < 40; i++) expect((await signIn(`nobody${i}@example.com`, 'wrong password!')).status).toBe(401);
      const fromAddress = await signIn('someone-else@example.com', 'wrong password!');
      expect(fromAddress.status).toBe(429);
      expect(fromAddress.body.error.message).toContain('your address');
    } finally {
      await limited.close();
    }
  }, 60_000);

  it('refuses every sign-up under CONSOLE_SIGNUP=closed, an invitation too, but an operator setup link', async () => {
    const closed = await startApi(testEnv({ CONSOLE_SIGNUP: 'closed' }));
    try {
      const client = consoleClient(closed.url);
      const refused = (await client.register('first@example.com')).registered;
      expect(refused.status).toBe(403);
      expect(refused.body.error.code).toBe('SignupClosed');
      const owner = await createOperator(closed, 'owner@example.com');
      const invited = await client.call('POST', '/admin/invitations', owner, {});
      const withInvitation = await client.call('POST', '/auth/register', undefined, {
        email: 'late@example.com',
        password: PASSWORD,
        invitation: invited.body.invitation,
      });
      expect(withInvitation.status).toBe(403);
      expect(withInvitation.body.error.code).toBe('SignupClosed');
    } finally {
      await closed.close();
    }
  });

  it('shows operators the queues and their failed jobs, read from BullMQ, and retries one', async () => {
    // A worker of the maintenance queue whose first run of a job fails, as a broken job would.
    const connection = new Redis(process.env.TEST_REDIS_URL!, { maxRetriesPerRequest: null });
    let runs = 0;
    const worker = new Worker(
      QueueName.Maintenance,
      () => {
        runs += 1;
        return runs === 1 ? Promise.reject(new Error('the sweep could not reach the database')) : Promise.resolve();
      },
      { connection, prefix: api.config.REDIS_PREFIX },
    );
    try {
      const queue = api.app.get<Queue>(getQueueToken(QueueName.Maintenance));
      const job = await queue.add('sweep', { taskId: 'task_system_test' }, { attempts: 1 });
      await waitUntil(async () => await job.isFailed(), 'the job to fail');

      const states = await console.call('GET', '/admin/system/queues', operator);
      expect(states.status).toBe(200);
      expect(states.body.data.map((state: { name: string }) => state.name)).toEqual(
        expect.arrayContaining(['embeddings', 'chat', 'image-edit', 'webhooks', 'maintenance']),
      );
      expect(states.body.data.find((state: { name: string }) => state.name === 'maintenance')).toMatchObject({
        failed: 1,
        workers: 1,
      });
      const failed = await console.call('GET', '/admin/system/queues/maintenance/failed?limit=5', operator);
      expect(failed.body.data).toEqual([
        expect.objectContaining({
          id: job.id,
          task_id: 'task_system_test',
          reason: 'the sweep could not reach the database',
          // Not a client error: Retry is offered.
          status: null,
          retryable: true,
          attempts: 1,
        }),
      ]);
      expect((await console.call('GET', '/admin/system/queues/nonsense/failed', operator)).status).toBe(404);
      expect((await console.call('GET', '/admin/system/queues', member)).status).toBe(403);

      const retried = await console.call('POST', `/admin/system/queues/maintenance/jobs/${job.id}/retry`, operator);
      expect(retried.status).toBe(202);
      await waitUntil(async () => (await queue.getJob(job.id!))!.isCompleted(), 'the retried job to complete');
      expect(runs).toBe(2);
      expect(
        (await console.call('POST', `/admin/system/queues/maintenance/jobs/${job.id}/retry`, operator)).status,
      ).toBe(404);
    } finally {
      await worker.close();
      await connection.quit();
    }
  });

  it('keeps an operator who can sign in when two operators demote each other at the same moment', async () => {
    expect((await console.call('PATCH', `/admin/users/${memberId}`, operator, { role: 'admin' })).status).toBe(200);
    const operatorId = (await console.call('GET', '/auth/me', operator)).body.user.id;
    const answers = await Promise.all([
      console.call('PATCH', `/admin/users/${memberId}`, operator, { role: 'user' }),
      console.call('PATCH', `/admin/users/${operatorId}`, member, { role: 'user' }),
    ]);
    for (const answer of answers) {
      expect([200, 409, 403]).toContain(answer.status);
      if (answer.status === 409) expect(answer.body.error.code).toBe('LastOperator');
    }
    const users = (await api.app.get(UsersRepository).listOperators()).filter((user) => !user.disabled);
    expect(users.length).toBeGreaterThanOrEqual(1);
    // Whoever is left an operator hands the member's role back to `user`.
    const remaining = users.some((user) => user._id === operatorId) ? operator : member;
    if (remaining === member) await console.call('PATCH', `/admin/users/${operatorId}`, member, { role: 'admin' });
    await console.call('PATCH', `/admin/users/${memberId}`, operator, { role: 'user' });
    expect((await console.call('GET', '/admin/users', member)).status).toBe(403);
  });

  async function rotatedKey(appId: string): Promise<string> {
    const rotated = await console.call('POST', `/applications/${appId}/rotate-key`, member, { grace_seconds: 0 });
    expect(rotated.status).toBe(200);
    return rotated.body.api_key;
  }
});
