import { Page } from 'playwright-core';
import { ConsoleStack, inspect, startConsoleStack } from '../helpers/browser';
import { consoleClient, ConsoleUser, createOperator } from '../helpers/console';
import { postJson, RunningApi, waitUntil } from '../helpers/gateway';

/**
 * An operator's money budget on a user, set on the Users page in a real browser against the real api, worker, Redis
 * and FerretDB: it is kept with the user's other ceilings, a typo is refused on the field, and the user's
 * applications are refused together once it is spent. Each state is saved at both sizes, checked by axe and walked
 * with the Tab key.
 */
jest.setTimeout(120_000);

/** The fake counts ceil(40 / 4) = 10 tokens; at 0.0005 per 1k tokens one call costs 0.000005. */
const embed = (api: RunningApi, apiKey: string) =>
  postJson(`${api.url}/v1/embeddings`, { model: 'text-embedding-v4', input: 'x'.repeat(40) }, apiKey);

describe("a user's budget on the Users page", () => {
  let stack: ConsoleStack;
  let api: RunningApi;
  let operator: ConsoleUser & { id: string };
  let member: ConsoleUser;
  let page: Page;
  const keys: string[] = [];
  const memberRow = () =>
    consoleClient(api.url)
      .call('GET', '/admin/users', operator)
      .then(({ body }) => body.data.find((user: { email: string }) => user.email === 'spender@example.com'));

  beforeAll(async () => {
    stack = await startConsoleStack({ CONSOLE_SIGNUP: 'open' });
    api = stack.api;
    operator = await createOperator(api, 'budget-ops@example.com');
    member = await consoleClient(api.url).register('spender@example.com');
    const context = await stack.newContext();
    const [name, value] = operator.cookie.split(/=(.*)/s);
    await context.addCookies([{ name, value, url: api.url }]);
    page = await context.newPage();
  }, 180_000);

  afterAll(() => stack?.close(), 150_000);

  const amount = () => page.getByLabel('Budget spender@example.com', { exact: true });
  const period = () => page.getByRole('combobox', { name: 'Budget period spender@example.com' });

  it('keeps a budget with the other ceilings, in the catalog currency, across a reload', async () => {
    await page.goto('/console/admin/users');
    await page.getByRole('columnheader', { name: 'Budget (CNY)' }).waitFor();
    const maxApps = page.getByLabel('Max applications spender@example.com');
    await maxApps.fill('4');
    await maxApps.press('Tab');
    await waitUntil(async () => (await memberRow()).ceilings.max_applications === 4, 'the first ceiling');
    // The period alone saves nothing while there is no amount; the amount then saves both.
    await period().click();
    await page.getByRole('option', { name: 'Per day' }).click();
    expect((await memberRow()).ceilings.budget).toBeNull();
    await amount().fill('0.00001');
    await amount().press('Tab');
    await page.getByText('Saved').first().waitFor();
    await waitUntil(async () => (await memberRow()).ceilings.budget !== null, 'the budget');
    expect((await memberRow()).ceilings).toEqual({
      max_applications: 4,
      max_daily_call_limit: null,
      max_token_quota: null,
      budget: { amount: '0.00001', period: 'day' },
    });
    await inspect(page, 'operator-user-budget');

    await page.reload();
    await expect(amount().inputValue()).resolves.toBe('0.00001');
    await expect(period().inputValue()).resolves.toBe('Per day');
    await expect(maxApps.inputValue()).resolves.toBe('4');
  });

  it('refuses a typo on the field, in the words of the application form, and saves nothing', async () => {
    await amount().fill('1e-5');
    await amount().press('Tab');
    await page.getByText('Budget must be an amount such as 12.50').waitFor();
    await inspect(page, 'operator-user-budget-refused');
    expect((await memberRow()).ceilings.budget).toEqual({ amount: '0.00001', period: 'day' });
    await amount().fill('0.00001');
    await amount().press('Tab');
  });

  it("refuses the user's applications together with 429 BudgetExceeded once the budget is spent", async () => {
    const client = consoleClient(api.url);
    for (const name of ['Spender one', 'Spender two']) {
      const created = await client.call('POST', '/applications', member, { name });
      expect(created.status).toBe(201);
      keys.push(created.body.credentials.api_key as string);
    }
    // Two calls of 0.000005 spend the user's 0.00001 exactly, one through each application.
    expect((await embed(api, keys[0])).status).toBe(200);
    expect((await embed(api, keys[1])).status).toBe(200);
    for (const key of keys) {
      const refused = await embed(api, key);
      expect(refused.status).toBe(429);
      expect(refused.body.error.code).toBe('BudgetExceeded');
      expect(refused.body.error.message).toContain('your account');
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    }
  });

  it('lifts the budget when the amount is emptied, and the calls go through again', async () => {
    await amount().fill('');
    await amount().press('Tab');
    await waitUntil(async () => (await memberRow()).ceilings.budget === null, 'the budget to be lifted');
    expect((await memberRow()).ceilings.max_applications).toBe(4);
    await page.getByText('Saved').first().waitFor();
    await inspect(page, 'operator-user-budget-lifted');
    // The key's cached standing follows within AUTH_CACHE_TTL_MS (100 ms here).
    await waitUntil(async () => (await embed(api, keys[0])).status === 200, 'a call admitted without the budget');
  });
});
