import { Page } from 'playwright-core';
import { consoleClient, ConsoleUser } from '../helpers/console';
import { ConsoleStack, inspect, lastCopied, startConsoleStack } from '../helpers/browser';
import { postJson, RunningApi, waitFor } from '../helpers/gateway';

/**
 * Kept request and response bodies in the console, in a real browser against the real api, worker, Redis and
 * FerretDB: turned on in an application's Settings (with what it means for personal data said beside the switch),
 * then read from a call's row in Requests.
 */
jest.setTimeout(120_000);

describe('console in the browser: request and response bodies', () => {
  let stack: ConsoleStack;
  let api: RunningApi;
  let user: ConsoleUser;
  let page: Page;
  let appId: string;
  let apiKey: string;

  beforeAll(async () => {
    // Open sign-up: an ordinary account, signed in at once (no one becomes the operator by signing up first).
    stack = await startConsoleStack({ CONSOLE_SIGNUP: 'open' });
    api = stack.api;
    user = await consoleClient(api.url).register('bodies-owner@example.com');
    const created = await consoleClient(api.url).call('POST', '/applications', user, { name: 'Diagnostics' });
    ({ id: appId } = created.body);
    apiKey = created.body.credentials.api_key;
    page = await stack.signedInPage(user.cookie);
  }, 180_000);

  afterAll(() => stack?.close(), 150_000);

  const embed = async (input: string) => {
    const answered = await postJson(`${api.url}/v1/embeddings`, { model: 'text-embedding-v4', input }, apiKey);
    expect(answered.status).toBe(200);
    return answered.headers.get('x-task-id')!;
  };

  /** Opens the Requests tab and the bodies dialog of one call, once the call is listed. */
  async function openBodies(taskId: string): Promise<void> {
    await page.goto(`/console/applications/${appId}/requests`);
    const button = page.getByRole('button', { name: `Bodies of ${taskId}` });
    // The task record is written just after the answer: the tab is reloaded until the call is listed.
    for (let tries = 0; (await button.count()) === 0; tries++) {
      if (tries === 60) throw new Error(`${taskId} was never listed`);
      await page.waitForTimeout(250);
      await page.reload();
      await page
        .getByText(/^(Calls|No calls in this range\.)$/)
        .first()
        .waitFor();
    }
    await button.click();
    await page.getByRole('dialog', { name: `Bodies of ${taskId}` }).waitFor();
  }

  it('says a call of an application that keeps no bodies has none', async () => {
    const taskId = await embed('not kept');
    await openBodies(taskId);
    await page
      .getByRole('dialog')
      .getByText('Bodies are not kept for this application. Turn on "Keep request and response bodies" in Settings')
      .waitFor();
    await page.getByRole('dialog').getByRole('link', { name: 'Open Settings' }).waitFor();
    await inspect(page, 'bodies-not-kept');
    await page.keyboard.press('Escape');
  });

  it('turns bodies on in Settings, beside a sentence on personal data, refusing a retention under a day', async () => {
    await page.goto(`/console/applications/${appId}/settings`);
    const keep = page.getByRole('switch', { name: 'Keep request and response bodies' });
    await keep.waitFor();
    expect(await keep.isChecked()).toBe(false);
    await page.getByText('Bodies may contain personal data.', { exact: false }).waitFor();
    const days = page.getByLabel('Keep bodies for (days)');
    expect(await days.inputValue()).toBe('7');

    await days.fill('0');
    await days.blur();
    await page.getByText('Keep bodies for (days) must be 1 or more').waitFor();
    await inspect(page, 'bodies-settings-refused');

    await days.fill('5');
    await keep.check();
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Saved').first().waitFor();
    const saved = await consoleClient(api.url).call('GET', `/applications/${appId}`, user);
    expect(saved.body).toMatchObject({ log_bodies: true, body_retention_days: 5 });
    await inspect(page, 'bodies-settings');
  });

  it("shows a kept call's request and response as indented JSON, each copyable", async () => {
    // The api reads the setting within AUTH_CACHE_TTL_MS (100 ms here): calls are made until one is kept.
    const taskId = await waitFor(
      async () => {
        const id = await embed('kept for reading');
        const bodies = await waitFor(
          () => consoleClient(api.url).call('GET', `/applications/${appId}/tasks/${id}/bodies`, user),
          (answer) => answer.status === 200,
          'the bodies',
          2_000,
        ).catch(() => null);
        return bodies ? id : null;
      },
      (id) => id !== null,
      'a call with kept bodies',
    );
    await openBodies(taskId!);
    const dialog = page.getByRole('dialog');
    const request = dialog.getByRole('region', { name: 'Request' });
    await request.waitFor();
    const requestText = await request.innerText();
    expect(requestText).toContain('\n  "model": "text-embedding-v4",\n');
    expect(JSON.parse(requestText)).toMatchObject({ model: 'text-embedding-v4', input: ['kept for reading'] });
    const response = JSON.parse(await dialog.getByRole('region', { name: 'Response' }).innerText());
    expect(response).toMatchObject({ object: 'list', model: 'text-embedding-v4' });
    await dialog.getByText(/^Kept until /).waitFor();

    await dialog.getByRole('button', { name: 'Copy Request' }).click();
    expect(await lastCopied(page)).toBe(requestText);
    await inspect(page, 'bodies-dialog');
  });
});
