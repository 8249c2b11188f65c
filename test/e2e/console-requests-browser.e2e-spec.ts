import { RETRY_JITTER } from '@gateway/webhooks';
import http from 'node:http';
import { AddressInfo } from 'node:net';
import { Page } from 'playwright-core';
import { consoleClient, ConsoleUser } from '../helpers/console';
import { ConsoleStack, inspect, startConsoleStack } from '../helpers/browser';
import { postJson, RunningApi } from '../helpers/gateway';

/**
 * What a developer reads in the console about their calls and their webhooks, in a real browser against the real
 * api, worker, Redis and FerretDB: why a delivery failed and when it is tried again.
 */
jest.setTimeout(120_000);

describe('console requests and webhooks in the browser', () => {
  let stack: ConsoleStack;
  let api: RunningApi;
  let receiver: http.Server;
  let receiverUrl: string;
  let user: ConsoleUser;
  let page: Page;

  beforeAll(async () => {
    // The receiver is down for maintenance: every event is answered 503, so each delivery waits for its next try.
    receiver = http.createServer((request, response) => {
      request.resume();
      request.on('end', () => response.writeHead(503).end('maintenance'));
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks/gateway`;
    // The second try an hour away, so the page shows it still to come.
    // Open sign-up: an ordinary account, signed in at once (no one becomes the operator by signing up first).
    stack = await startConsoleStack({
      CONSOLE_SIGNUP: 'open',
      OUTBOUND_ALLOW_PRIVATE: 'true',
      WEBHOOK_RETRY_SCHEDULE: '0,1h',
    });
    api = stack.api;
    user = await consoleClient(api.url).register('developer@example.com');
    page = await stack.signedInPage(user.cookie);
  }, 180_000);

  afterAll(async () => {
    await stack?.close();
    await new Promise((resolve) => receiver?.close(resolve));
  }, 150_000);

  it('shows per delivery the event, the URL, why it failed, the attempts and when the next try is', async () => {
    const { call } = consoleClient(api.url);
    const created = await call('POST', '/applications', user, { name: 'Hooks', callback_url: receiverUrl });
    expect(created.status).toBe(201);
    const { app_id: appId, api_key: apiKey } = created.body.credentials;
    const answered = await postJson(`${api.url}/v1/embeddings`, { model: 'text-embedding-v4', input: 'hello' }, apiKey);
    expect(answered.status).toBe(200);

    await page.goto(`/console/applications/${appId}`);
    await page.getByRole('tab', { name: 'Webhooks' }).click();
    const row = page.getByRole('row').filter({ hasText: 'task.succeeded' });
    // The delivery is made by the worker after the call; the panel is reloaded until it is listed.
    for (let tries = 0; (await row.count()) === 0; tries++) {
      if (tries === 60) throw new Error('the failed delivery was never listed');
      await page.waitForTimeout(500);
      await page.reload();
      await page.getByRole('tab', { name: 'Webhooks' }).click();
      await page
        .getByText(/^(Outcome|No deliveries in this range\.)$/)
        .first()
        .waitFor();
    }
    const text = (await row.innerText()).replace(/\s+/g, ' ');
    expect(text).toContain(receiverUrl);
    expect(text).toContain('HTTP 503');
    expect(text).toMatch(/1 of 2/);
    // The next try an hour after this one, less its jitter (the page shows whole seconds), in the column so named.
    const headers = await page.getByRole('columnheader').allInnerTexts();
    const nextTry = await row.getByRole('cell').nth(headers.indexOf('Next try')).innerText();
    expect(headers).toContain('Next try');
    expect(Date.parse(nextTry)).toBeGreaterThan(Date.now() + (1 - RETRY_JITTER) * 3_600_000 - 60_000);
    await inspect(page, 'webhooks-failed');
  });

  it('lists a refused call (429) in Requests within 5 s, beside the calls that became tasks, and across the account', async () => {
    const { call } = consoleClient(api.url);
    const created = await call('POST', '/applications', user, { name: 'Limited', daily_call_limit: 1 });
    const { app_id: appId, api_key: apiKey } = created.body.credentials;
    expect(
      (await postJson(`${api.url}/v1/embeddings`, { model: 'text-embedding-v4', input: 'the one call' }, apiKey))
        .status,
    ).toBe(200);
    await page.goto(`/console/applications/${appId}/requests`);
    await page.getByRole('heading', { name: 'Refused before the queue' }).waitFor();
    await page.getByText('No refused calls.').waitFor();

    const refused = await postJson(
      `${api.url}/v1/embeddings`,
      { model: 'text-embedding-v4', input: 'one more' },
      apiKey,
    );
    expect(refused.status).toBe(429);
    // The tab reads the refusals again on its own: no reload.
    const row = page.getByRole('row').filter({ hasText: 'DailyLimitExceeded' });
    await row.waitFor({ timeout: 5_000 });
    expect((await row.innerText()).replace(/\s+/g, ' ')).toMatch(
      /429 DailyLimitExceeded POST \/v1\/embeddings text-embedding-v4 key_\w+ Sync \d+ ms/,
    );
    await page.getByRole('row').filter({ hasText: 'succeeded' }).waitFor();
    await inspect(page, 'requests');

    // Only the refused ones: the calls that became tasks are no longer listed.
    await page.getByRole('combobox', { name: 'Outcome' }).click();
    await page.getByRole('option', { name: 'Refused' }).click();
    await expect(page.getByRole('heading', { name: 'Calls' }).count()).resolves.toBe(0);
    await row.waitFor();

    await page.getByRole('link', { name: 'Requests', exact: true }).click();
    await page.getByRole('heading', { name: 'Requests' }).waitFor();
    await page.getByRole('row').filter({ hasText: appId }).filter({ hasText: 'DailyLimitExceeded' }).waitFor();
    // The call that became a task is listed there too, with its application.
    await page.getByRole('row').filter({ hasText: appId }).filter({ hasText: 'succeeded' }).waitFor();
    await inspect(page, 'requests-account');
  });
});
