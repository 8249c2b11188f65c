import { Page } from 'playwright-core';
import { consoleClient, ConsoleUser } from '../helpers/console';
import { ConsoleStack, inspect, startConsoleStack } from '../helpers/browser';
import { RunningApi, waitFor } from '../helpers/gateway';

/**
 * The Requests filters in a real browser against the real api, worker, Redis and FerretDB: a developer narrows their
 * calls by API key, by sync or async and by outcome, on the application's tab and across the account, and each
 * choice is read from the server.
 */
jest.setTimeout(120_000);

describe('console Requests filters in the browser', () => {
  let stack: ConsoleStack;
  let api: RunningApi;
  let user: ConsoleUser;
  let page: Page;

  beforeAll(async () => {
    stack = await startConsoleStack({ CONSOLE_SIGNUP: 'open' });
    api = stack.api;
    user = await consoleClient(api.url).register('filters-browser@example.com');
    page = await stack.signedInPage(user.cookie);
  }, 180_000);

  afterAll(async () => {
    await stack?.close();
  }, 150_000);

  const embeddings = (key: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${api.url}/v1/embeddings`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}`, ...headers },
      body: JSON.stringify(body),
    });
  const rows = (text: string) => page.getByRole('row').filter({ hasText: text });

  it('narrows the calls by key, by mode and by outcome, each read from the server', async () => {
    const { call } = consoleClient(api.url);
    const created = await call('POST', '/applications', user, { name: 'Filtered' });
    const { app_id: appId, api_key: firstKey } = created.body.credentials;
    const second = await call('POST', `/applications/${appId}/keys`, user, { name: 'batch jobs' });
    const secondKey: string = second.body.api_key;
    const sync = await embeddings(firstKey, { model: 'text-embedding-v4', input: 'sync call' });
    expect(sync.status).toBe(200);
    const queued = await embeddings(
      secondKey,
      { model: 'text-embedding-v4', input: 'async call' },
      { 'x-async': 'enable' },
    );
    expect(queued.status).toBe(202);
    const [syncTask, asyncTask] = [sync.headers.get('x-task-id')!, queued.headers.get('x-task-id')!];
    expect((await embeddings(secondKey, { model: 'text-embedding-v4' })).status).toBe(400);
    await waitFor(
      async () => (await call('GET', `/applications/${appId}/tasks`, user)).body.data.length,
      (count) => count === 2,
      'both tasks to be recorded',
    );

    await page.goto(`/console/applications/${appId}/requests`);
    await rows(syncTask).waitFor();
    await rows(asyncTask).waitFor();
    await rows('InvalidParameter').waitFor();
    await inspect(page, 'requests-filters');

    // The second key: its async task and its refusal, not the first key's call.
    await page.getByRole('combobox', { name: 'Key' }).click();
    await page.getByRole('option', { name: /^batch jobs/ }).click();
    await rows('InvalidParameter').waitFor();
    await rows(asyncTask).waitFor();
    await rows(syncTask).waitFor({ state: 'detached' });
    await inspect(page, 'requests-filter-key');
    // The export follows the range and the filter: the header, that key's task and its refusal.
    const href = await page.getByRole('link', { name: 'Export requests (CSV)' }).getAttribute('href');
    expect(href).toMatch(/^\/console\/api\/applications\/app_\w+\/requests\/export\?key_id=key_\w+&calls=all&from=/);
    const exported = (await (await page.request.get(href!)).text()).split('\r\n').filter(Boolean);
    expect(exported.map((line) => line.split(',')[0])).toEqual(['kind', 'task', 'refused']);
    expect(exported[1]).toContain(asyncTask);

    // Sync only: the key filter is cleared (one filter at a time), the sync task and the sync refusal remain.
    await page.getByRole('radiogroup', { name: 'Mode' }).getByText('Sync', { exact: true }).click();
    await rows(syncTask).waitFor();
    await rows(asyncTask).waitFor({ state: 'detached' });
    await rows('InvalidParameter').waitFor();
    await expect(page.getByRole('combobox', { name: 'Key' }).inputValue()).resolves.toBe('');
    await inspect(page, 'requests-filter-sync');

    // Failed tasks only: none here, and the refused calls are not listed under it.
    await page.getByRole('combobox', { name: 'Outcome' }).click();
    await page.getByRole('option', { name: 'Failed' }).click();
    await page.getByText('No calls in this range.').waitFor();
    await expect(page.getByRole('heading', { name: 'Refused before the queue' }).count()).resolves.toBe(0);
    await inspect(page, 'requests-filter-failed');

    // Across the account: the refusals of one error code.
    await page.goto('/console/requests');
    await rows('InvalidParameter').waitFor();
    await page.getByRole('combobox', { name: 'Error code' }).click();
    await page.getByRole('option', { name: 'RateLimited' }).click();
    await page.getByText('No refused calls.').waitFor();
    await page.getByRole('combobox', { name: 'Error code' }).fill('InvalidPar');
    await page.getByRole('option', { name: 'InvalidParameter' }).click();
    await rows('InvalidParameter').waitFor();
    await inspect(page, 'requests-account-filter-code');
  });
});
