import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BrowserContext, Page } from 'playwright-core';
import { ConsoleStack, inspect, lastCopied, startConsoleStack } from '../helpers/browser';
import { consoleClient, ConsoleUser } from '../helpers/console';
import { postJson, waitFor } from '../helpers/gateway';

/**
 * Usage a person reads and the catalog for people, in a real browser against the real api, worker, Redis and
 * FerretDB: presets and a reversed range, charts for what an application may call, input and output tokens and
 * latency per model, the CSV export, the account's dashboard, and the catalog's search and copy.
 */
jest.setTimeout(120_000);

const day = (offset = 0) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);

describe('console usage, dashboard and catalog in the browser', () => {
  let stack: ConsoleStack;
  let context: BrowserContext;
  let page: Page;
  let user: ConsoleUser;
  let chatApp: { id: string; credentials: { api_key: string } };
  let painterApp: { id: string };
  /** Every usage request the page sent, by URL. */
  const usageRequests: string[] = [];

  beforeAll(async () => {
    // Open sign-up: an ordinary account, signed in at once (no one becomes the operator by signing up first).
    stack = await startConsoleStack({ CONSOLE_SIGNUP: 'open' });
    const client = consoleClient(stack.api.url);
    user = await client.register('reader@example.com');
    const create = async (name: string, capabilities: string[]) =>
      (await client.call('POST', '/applications', user, { name, scope: { capabilities, models: [] } })).body;
    chatApp = await create('Chatter', ['chat']);
    painterApp = await create('Painter', ['image-edit']);
    for (let i = 0; i < 2; i++) {
      const answer = await postJson(
        `${stack.api.url}/v1/chat/completions`,
        { model: 'x-chat', messages: [{ role: 'user', content: `hello number ${i}` }] },
        chatApp.credentials.api_key,
      );
      expect(answer.status).toBe(200);
    }
    await waitFor(
      () => client.call('GET', `/applications/${chatApp.id}/usage?from=${day()}&to=${day()}`, user),
      (answer) => answer.body.total?.calls === 2,
      'the usage to be rolled up',
    );
    context = await stack.newContext();
    await context.addCookies([
      { name: 'gw_session', value: user.cookie.slice(user.cookie.indexOf('=') + 1), url: stack.api.url },
    ]);
    page = await context.newPage();
    page.on('request', (request) => {
      if (request.url().includes('/usage?')) usageRequests.push(request.url());
    });
  }, 180_000);

  afterAll(() => stack?.close(), 150_000);

  it('shows input and output tokens apart and latency per model, with charts only for what the app may call', async () => {
    await page.goto(`/console/applications/${chatApp.id}/usage`);
    const table = page.getByTestId('usage-by-model');
    await table.getByText('x-chat').waitFor();
    for (const column of ['Input tokens', 'Output tokens', 'Latency p50', 'Latency p95'])
      await table.getByRole('columnheader', { name: column }).waitFor();
    await expect(table.getByRole('cell', { name: /^≤ [\d,]+ ms$/ }).count()).resolves.toBeGreaterThanOrEqual(2);
    await page.getByTestId('chart-tokens').waitFor();
    await expect(page.getByTestId('chart-images').count()).resolves.toBe(0);
    await expect(table.getByRole('columnheader', { name: 'Images' }).count()).resolves.toBe(0);
    await inspect(page, 'usage-app');

    await page.goto(`/console/applications/${painterApp.id}/usage`);
    await page.getByTestId('chart-images').waitFor();
    await expect(page.getByTestId('chart-tokens').count()).resolves.toBe(0);
  });

  it('offers today, 7, 30 and 90 days', async () => {
    await page.goto(`/console/applications/${chatApp.id}/usage`);
    const from = page.getByLabel('From');
    await expect(page.getByRole('button', { name: '30 days' }).getAttribute('aria-pressed')).resolves.toBe('true');
    await expect(from.inputValue()).resolves.toBe(day(-29));
    await page.getByRole('button', { name: 'Today' }).click();
    await expect(from.inputValue()).resolves.toBe(day());
    await expect(page.getByRole('button', { name: 'Today' }).getAttribute('aria-pressed')).resolves.toBe('true');
    await page.getByTestId('usage-by-model').getByText('x-chat').waitFor();
    await page.getByRole('button', { name: '7 days' }).click();
    await expect(from.inputValue()).resolves.toBe(day(-6));
    await page.getByRole('button', { name: '90 days' }).click();
    await expect(from.inputValue()).resolves.toBe(day(-89));
    await page.getByTestId('usage-by-model').getByText('x-chat').waitFor();
  });

  it('flags a reversed date range and does not send it', async () => {
    await page.goto(`/console/applications/${chatApp.id}/usage`);
    await page.getByTestId('usage-by-model').getByText('x-chat').waitFor();
    await page.getByLabel('To').fill('2026-03-01');
    await page.getByLabel('From').fill('2026-03-10');
    await page.getByText('The start date is after the end date.').waitFor();
    await expect(page.getByLabel('From').getAttribute('aria-invalid')).resolves.toBe('true');
    expect(usageRequests.filter((url) => url.includes('from=2026-03-10'))).toEqual([]);
    await expect(page.getByRole('button', { name: 'Export usage (CSV)' }).isDisabled()).resolves.toBe(true);
    await inspect(page, 'usage-reversed');
  });

  it('says so when a range has no per-image billing', async () => {
    await page.goto(`/console/applications/${chatApp.id}/usage`);
    await page.getByRole('button', { name: 'Show per-image billing' }).click();
    await page.getByTestId('billing-empty').getByText('No per-image billing in this range.').waitFor();
    await inspect(page, 'usage-billing-empty');
  });

  it('exports the usage as CSV: tokens, cost and latency, not only per-image billing', async () => {
    await page.goto(`/console/applications/${chatApp.id}/usage`);
    await page.getByTestId('usage-by-model').getByText('x-chat').waitFor();
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('link', { name: 'Export usage (CSV)' }).click(),
    ]);
    const saved = path.join(os.tmpdir(), `usage-export-${process.pid}.csv`);
    await download.saveAs(saved);
    expect(download.suggestedFilename()).toBe(`usage-${chatApp.id}-${day(-29)}-${day()}.csv`);
    const lines = fs.readFileSync(saved, 'utf8').trim().split('\r\n');
    fs.rmSync(saved);
    expect(lines[0]).toBe(
      'app_id,app_name,day,model,calls,errors,prompt_tokens,completion_tokens,images,cost,currency,latency_p50_ms,latency_p95_ms',
    );
    expect(lines.slice(1)).toEqual([
      expect.stringMatching(new RegExp(`^${chatApp.id},Chatter,${day()},x-chat,2,0,\\d+,\\d+,0,`)),
    ]);
  });

  it('adds every application up on the dashboard', async () => {
    await page.goto('/console/applications');
    await page.getByRole('link', { name: 'Dashboard' }).click();
    await page.getByRole('heading', { name: 'Dashboard' }).waitFor();
    const byApp = page.getByTestId('usage-by-app');
    await byApp.getByRole('link', { name: 'Chatter' }).waitFor();
    await byApp.getByRole('link', { name: 'Painter' }).waitFor();
    await page.getByTestId('dashboard-totals').getByText('Input tokens').waitFor();
    await inspect(page, 'dashboard');
    await byApp.getByRole('link', { name: 'Chatter' }).click();
    await page.getByTestId('usage-by-model').getByText('x-chat').waitFor();
  });

  it('lists the catalog for people, with search and a copy of the model id', async () => {
    await page.goto('/console/models');
    const catalog = page.getByTestId('catalog');
    const chatRow = catalog.getByRole('row').filter({ has: page.getByText('x-chat', { exact: true }) });
    await chatRow.getByText('0.8 CNY / 1M input tokens').waitFor();
    await chatRow.getByText('2 CNY / 1M output tokens').waitFor();
    await chatRow.getByText('Upstream').waitFor();
    await chatRow.getByText('Tools · Structured output · Vision').waitFor();
    await chatRow.getByText('Output tokens: 8,192').waitFor();
    const local = catalog.getByRole('row').filter({ has: page.getByText('smollm2-135m-instruct', { exact: true }) });
    await local.getByText('Local · free').waitFor();
    await inspect(page, 'models');

    await page.getByLabel('Search models').fill('x-image-edit-plus');
    const alias = catalog.getByRole('row').filter({ has: page.getByText('x-image-edit-plus', { exact: true }) });
    await alias.getByText('alias of x-image-edit-plus-2025-12-15').waitFor();
    await expect(catalog.getByText('x-chat', { exact: true }).count()).resolves.toBe(0);
    await alias.getByRole('button', { name: 'Copy model id x-image-edit-plus' }).click();
    await expect(lastCopied(page)).resolves.toBe('x-image-edit-plus');
    await inspect(page, 'models-search');
    await page.getByLabel('Search models').fill('no such model');
    await page.getByText('No model matches this search.').waitFor();
  });
});
