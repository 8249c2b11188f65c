import { QueueName } from '@gateway/queue';
import { getQueueToken } from '@nestjs/bullmq';
import { Queue, UnrecoverableError, Worker } from 'bullmq';
import Redis from 'ioredis';
import { BrowserContext, Page } from 'playwright-core';
import { ConsoleStack, inspect, startConsoleStack, tabTo } from '../helpers/browser';
import { consoleClient, ConsoleUser, createOperator } from '../helpers/console';
import { RunningApi, waitUntil } from '../helpers/gateway';

/**
 * The operators' pages in a real browser against the real api and worker: users (roles, ceilings kept together,
 * negatives refused, disabling confirmed, usage), invitations and the sign-up policy, every account's applications,
 * the System page's failed jobs; and a deleted application as its owner sees it. Each page is saved at both sizes,
 * checked by axe and walked with the Tab key.
 */
jest.setTimeout(120_000);

describe('operators in the browser', () => {
  let stack: ConsoleStack;
  let api: RunningApi;
  let operator: ConsoleUser & { id: string };
  let member: ConsoleUser & { id: string };
  let operatorPage: Page;
  const client = () => consoleClient(api.url);
  const memberRow = () =>
    client()
      .call('GET', '/admin/users', operator)
      .then(({ body }) => body.data.find((user: { id: string }) => user.id === member.id));

  async function signIn(email: string): Promise<ConsoleUser> {
    const login = await client().call('POST', '/auth/login', undefined, { email, password: 'correct horse battery' });
    return { cookie: (login.headers.get('set-cookie') ?? '').split(';')[0], csrf: login.body.csrf_token };
  }

  async function signedIn(user: ConsoleUser): Promise<Page> {
    const context: BrowserContext = await stack.newContext();
    const [name, value] = user.cookie.split(/=(.*)/s);
    await context.addCookies([{ name, value, url: api.url }]);
    return context.newPage();
  }

  beforeAll(async () => {
    // The stack's worker leaves the maintenance queue to this suite's own worker, whose jobs fail on purpose.
    stack = await startConsoleStack({ WORKER_QUEUES: 'embeddings,chat,image-edit,webhooks' });
    api = stack.api;
    operator = await createOperator(api, 'ops@example.com');
    const invited = await client().call('POST', '/admin/invitations', operator, { email: 'member@example.com' });
    const password = 'correct horse battery';
    await client().call('POST', '/auth/register', undefined, {
      email: 'member@example.com',
      password,
      invitation: invited.body.invitation,
    });
    const { id } = (await client().call('POST', '/auth/login', undefined, { email: 'member@example.com', password }))
      .body.user;
    member = { ...(await signIn('member@example.com')), id };
    operatorPage = await signedIn(operator);
  }, 180_000);

  afterAll(() => stack?.close(), 150_000);

  it('keeps two ceilings set one after the other, and says each was saved', async () => {
    await operatorPage.goto('/console/admin/users');
    const field = (label: string) => operatorPage.getByLabel(`${label} member@example.com`);
    await field('Max applications').fill('3');
    await field('Max applications').press('Tab');
    await operatorPage.getByText('Saved').first().waitFor();
    await field('Max daily limit').fill('2000');
    await field('Max daily limit').press('Tab');
    await waitUntil(async () => (await memberRow()).ceilings.max_daily_call_limit === 2000, 'the second ceiling');
    expect((await memberRow()).ceilings).toEqual({
      max_applications: 3,
      max_daily_call_limit: 2000,
      max_token_quota: null,
      budget: null,
    });
    await operatorPage.reload();
    await expect(field('Max applications').inputValue()).resolves.toBe('3');
    // Shown as the application form shows a limit, with a thousands separator.
    await expect(field('Max daily limit').inputValue()).resolves.toBe('2,000');
    await inspect(operatorPage, 'operator-users');
  });

  it('refuses a negative ceiling on the field instead of saving it as a positive one', async () => {
    const quota = operatorPage.getByLabel('Max token quota member@example.com');
    await quota.fill('-1');
    await quota.press('Tab');
    await operatorPage.getByText('Enter 0 or more, or leave it empty for no ceiling').waitFor();
    await expect(quota.inputValue()).resolves.toBe('-1');
    expect((await memberRow()).ceilings.max_token_quota).toBeNull();
    await inspect(operatorPage, 'operator-users-refused');
    await quota.fill('');
    await quota.press('Tab');
  });

  it('asks before disabling a user, by keyboard too; Escape leaves the account as it was', async () => {
    const toggle = operatorPage.getByLabel('Disabled member@example.com');
    await tabTo(operatorPage, toggle);
    await operatorPage.keyboard.press('Space');
    const dialog = operatorPage.getByRole('dialog', { name: 'Disable member@example.com?' });
    await dialog.waitFor();
    await inspect(operatorPage, 'operator-disable-confirm');
    await operatorPage.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });
    expect((await memberRow()).disabled).toBe(false);

    await tabTo(operatorPage, toggle);
    await operatorPage.keyboard.press('Space');
    await dialog.getByRole('button', { name: 'Disable' }).click();
    await waitUntil(async () => (await memberRow()).disabled === true, 'the account to be disabled');
    // Enabling needs no confirmation. The switch answers once the page has the disabled account back; a Space
    // pressed before (a slow machine) would be lost.
    await waitUntil(async () => (await toggle.isChecked()) && (await toggle.isEnabled()), 'the switch to show it');
    await toggle.focus();
    await operatorPage.keyboard.press('Space');
    await waitUntil(async () => (await memberRow()).disabled === false, 'the account to be enabled');
    // Disabling ended the member's sessions: sign in again.
    member = { ...(await signIn('member@example.com')), id: member.id };
  });

  it('changes a role in the page; the own role is locked', async () => {
    await operatorPage.goto('/console/admin/users');
    await expect(operatorPage.getByRole('combobox', { name: 'Role ops@example.com' }).isDisabled()).resolves.toBe(true);
    await operatorPage.getByRole('combobox', { name: 'Role member@example.com' }).click();
    await operatorPage.getByRole('option', { name: 'Operator' }).click();
    await waitUntil(async () => (await memberRow()).role === 'admin', 'the member to be an operator');
    await operatorPage.getByRole('combobox', { name: 'Role member@example.com' }).click();
    await operatorPage.getByRole('option', { name: 'User' }).click();
    await waitUntil(async () => (await memberRow()).role === 'user', 'the member to be a user again');
  });

  it("shows a user's usage per application", async () => {
    await client().call('POST', '/applications', member, { name: 'Member app' });
    await operatorPage.reload();
    await operatorPage.getByRole('button', { name: 'Usage member@example.com' }).click();
    const dialog = operatorPage.getByRole('dialog', { name: 'Usage of member@example.com, last 30 days' });
    await dialog.getByText('Member app').waitFor();
    await dialog.getByText('Total').waitFor();
    await inspect(operatorPage, 'operator-user-usage');
    await operatorPage.keyboard.press('Escape');
  });

  it('shows the sign-up policy, creates an invitation with a chosen expiry, lists it and revokes it', async () => {
    await operatorPage.goto('/console/admin/users');
    await expect(operatorPage.getByTestId('signup-policy').textContent()).resolves.toContain(
      'CONSOLE_SIGNUP=invite — Only people holding an invitation',
    );
    await operatorPage.getByRole('combobox', { name: 'Invitation valid for' }).click();
    await operatorPage.getByRole('option', { name: '7 days' }).click();
    await operatorPage.getByRole('button', { name: 'Create invitation' }).click();
    await operatorPage.getByTestId('invitation-link').waitFor();
    const listed = (await client().call('GET', '/admin/invitations', operator)).body.data;
    expect(listed).toHaveLength(1);
    // In minutes: the expiry and the creation time are taken a moment apart.
    expect(Math.round((Date.parse(listed[0].expires_at) - Date.parse(listed[0].created_at)) / 60_000)).toBe(7 * 1440);
    await operatorPage.getByText('Account invitation').waitFor();
    await inspect(operatorPage, 'operator-invitations');
    await operatorPage.getByRole('button', { name: /^Revoke any email/ }).click();
    await operatorPage.getByText('No unused invitations.').waitFor();
    expect((await client().call('GET', '/admin/invitations', operator)).body.data).toEqual([]);
  });

  it("lists every account's applications with their owner", async () => {
    await operatorPage.getByRole('link', { name: 'All apps' }).click();
    await operatorPage.getByRole('heading', { name: 'Every account’s apps' }).waitFor();
    await operatorPage.getByRole('cell', { name: 'member@example.com' }).waitFor();
    await inspect(operatorPage, 'operator-all-applications');
  });

  it('offers Retry for a failed job but not for one a client error refused', async () => {
    const connection = new Redis(process.env.TEST_REDIS_URL!, { maxRetriesPerRequest: null });
    const worker = new Worker(
      QueueName.Maintenance,
      (job) =>
        Promise.reject(
          job.name === 'refused'
            ? new UnrecoverableError('InvalidParameter: size must be one of 1024x1024, 512x512')
            : new Error('the sweep could not reach the database'),
        ),
      { connection, prefix: api.config.REDIS_PREFIX },
    );
    try {
      const queue = api.app.get<Queue>(getQueueToken(QueueName.Maintenance));
      const jobs = await Promise.all([
        queue.add('sweep', { taskId: 'task_outage' }, { attempts: 1 }),
        queue.add('refused', { taskId: 'task_refused' }, { attempts: 1 }),
      ]);
      await waitUntil(
        async () => (await Promise.all(jobs.map((job) => job.isFailed()))).every(Boolean),
        'both jobs to fail',
      );
    } finally {
      await worker.close();
      await connection.quit();
    }
    await operatorPage.getByRole('link', { name: 'System' }).click();
    await operatorPage.getByText('task_refused').waitFor();
    await operatorPage.getByText('Refused request (400): retrying would fail the same way').waitFor();
    await expect(operatorPage.getByRole('button', { name: 'Retry' }).count()).resolves.toBe(1);
    await inspect(operatorPage, 'operator-system');
  });

  it('hides a deleted application unless asked, and shows its settings read-only', async () => {
    const gone = (await client().call('POST', '/applications', member, { name: 'Deleted app' })).body.id;
    await client().call('DELETE', `/applications/${gone}`, member);
    const page = await signedIn(member);
    await page.goto('/console/applications');
    await page.getByRole('link', { name: 'Member app' }).waitFor();
    await expect(page.getByRole('link', { name: 'Deleted app' }).count()).resolves.toBe(0);
    await page.getByLabel('Show deleted applications').check();
    await page.getByRole('link', { name: 'Deleted app' }).click();
    await page.getByRole('tab', { name: 'Settings' }).click();
    await page.getByText('This application is deleted').waitFor();
    await page.getByRole('cell', { name: 'Deleted app' }).waitFor();
    await expect(page.getByRole('button', { name: 'Save' }).count()).resolves.toBe(0);
    await inspect(page, 'application-deleted-settings');
  });
});
