import { Page } from 'playwright-core';
import { consoleClient, ConsoleUser } from '../helpers/console';
import { ConsoleStack, inspect, startConsoleStack } from '../helpers/browser';
import { postJson, RunningApi } from '../helpers/gateway';

/**
 * A money budget set in the console, in a real browser against the real api, worker, Redis and FerretDB: the next
 * call past it is refused, and the usage tab shows spent / budget.
 */
jest.setTimeout(120_000);

/** The fake counts ceil(40 / 4) = 10 tokens; at 0.0005 per 1k tokens one call costs 0.000005. */
const embed = (api: RunningApi, apiKey: string) =>
  postJson(`${api.url}/v1/embeddings`, { model: 'text-embedding-v4', input: 'x'.repeat(40) }, apiKey);

describe('console budgets in the browser', () => {
  let stack: ConsoleStack;
  let api: RunningApi;
  let user: ConsoleUser;
  let page: Page;

  beforeAll(async () => {
    // Open sign-up: an ordinary account, signed in at once (no one becomes the operator by signing up first).
    stack = await startConsoleStack({ CONSOLE_SIGNUP: 'open' });
    api = stack.api;
    user = await consoleClient(api.url).register('budgeter@example.com');
    page = await stack.signedInPage(user.cookie);
  }, 180_000);

  afterAll(async () => {
    await stack?.close();
  }, 150_000);

  it('refuses the call past a budget set in Settings and shows spent / budget on the usage tab', async () => {
    const created = await consoleClient(api.url).call('POST', '/applications', user, { name: 'Budgeted' });
    expect(created.status).toBe(201);
    const { app_id: appId, api_key: apiKey } = created.body.credentials;

    await page.goto(`/console/applications/${appId}`);
    await page.getByRole('tab', { name: 'Settings' }).click();
    const amount = page.getByLabel('Budget', { exact: true });
    // A typo is refused with the rule's words before anything is sent.
    await amount.fill('1e-5');
    await amount.blur();
    await page.getByText('Budget must be an amount such as 12.50').waitFor();
    await amount.fill('0.00001');
    await page.getByRole('combobox', { name: 'Budget period' }).click();
    await page.getByRole('option', { name: 'Per day (UTC)' }).click();
    await inspect(page, 'budget-settings');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Saved').first().waitFor();
    const saved = await consoleClient(api.url).call('GET', `/applications/${appId}`, user);
    expect(saved.body.budget).toEqual({ amount: '0.00001', period: 'day' });

    // Two calls spend the budget exactly; the third is refused until the next UTC day.
    expect((await embed(api, apiKey)).status).toBe(200);
    expect((await embed(api, apiKey)).status).toBe(200);
    const refused = await embed(api, apiKey);
    expect(refused.status).toBe(429);
    expect(refused.body.error.code).toBe('BudgetExceeded');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);

    await page.getByRole('tab', { name: 'Usage' }).click();
    const meter = page.getByTestId('budget-meter');
    await meter.waitFor();
    const text = (await meter.innerText()).replace(/\s+/g, ' ');
    expect(text).toContain('This application, today');
    expect(text).toContain('0.00001 of 0.00001 CNY spent');
    await inspect(page, 'budget-usage');
  });
});
