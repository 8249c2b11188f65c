import { Page } from 'playwright-core';
import { consoleClient } from '../helpers/console';
import { ConsoleStack, inspect, lastCopied, startConsoleStack } from '../helpers/browser';
import { getJson, RunningApi, waitUntil } from '../helpers/gateway';

/**
 * Named API keys in the console, in a real browser against the real api: create one (shown once, in a dialog that
 * asks before Escape or × close it), revoke one, and the confirmations asked before a rotation with no grace period
 * and before a Secret Key reset.
 */
jest.setTimeout(120_000);

describe('console in the browser: API keys and credentials', () => {
  let stack: ConsoleStack;
  let api: RunningApi;
  let page: Page;
  let appId: string;
  let namedKey: string;

  beforeAll(async () => {
    // Open sign-up: an ordinary account, signed in at once (no one becomes the operator by signing up first).
    stack = await startConsoleStack({ CONSOLE_SIGNUP: 'open' });
    api = stack.api;
    const client = consoleClient(api.url);
    const owner = await client.register('keys-owner@example.com');
    // The registration's password is the client's own; sign in with it through the page below.
    appId = (await client.call('POST', '/applications', owner, { name: 'Key ring' })).body.id;
  }, 180_000);

  afterAll(() => stack?.close(), 150_000);

  const dialog = () => page.getByRole('dialog');
  const models = (key: string) => getJson(`${api.url}/v1/models`, key);

  it('says what each credential is for, and shows the key prefix with a single ellipsis', async () => {
    const context = await stack.newContext();
    page = await context.newPage();
    await page.goto('/console/sign-in');
    await page.getByLabel('Email').fill('keys-owner@example.com');
    await page.getByLabel(/^Password/).fill('correct horse battery');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Applications' }).waitFor();
    await page.goto(`/console/applications/${appId}`);
    await page.getByRole('heading', { name: 'Key ring' }).waitFor();
    await page.getByText('API Key: for Bearer calls').waitFor();
    await page.getByText('App ID and Secret Key: for signed requests').waitFor();
    const prefix = await page.locator('table code').first().textContent();
    expect(prefix).toMatch(/^sk-[0-9A-Za-z]{7}…$/);
    await inspect(page, 'keys');
  });

  it('creates a named key shown once: the focus starts on Copy, and the underscore of the App ID shows', async () => {
    await page.getByLabel('Name', { exact: true }).fill('ci runner');
    await page.getByRole('combobox', { name: 'Expires' }).click();
    await page.getByRole('option', { name: 'in 30 days' }).click();
    await page.getByRole('button', { name: 'Create key' }).click();
    await dialog().getByText('they will not be shown again').waitFor();
    expect(await page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe('Copy App ID');
    await dialog().getByRole('button', { name: 'Copy API Key' }).click();
    namedKey = (await lastCopied(page))!;
    expect(namedKey).toMatch(/^sk-/);
    expect((await models(namedKey)).status).toBe(200);

    // The App ID drawn with and without its underscore: a field that crops the underscore draws both alike.
    const field = page.getByTestId('secret-app-id');
    expect(await field.inputValue()).toBe(appId);
    await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
    const withUnderscore = await field.screenshot();
    await field.evaluate((input: HTMLInputElement) => (input.value = input.value.replace('_', ' ')));
    const withSpace = await field.screenshot();
    await field.evaluate((input: HTMLInputElement, id) => (input.value = id), appId);
    expect(withUnderscore.equals(withSpace)).toBe(false);
    await inspect(page, 'key-created');
  });

  it('asks before Escape or × close the dialog of a key shown once', async () => {
    await page.keyboard.press('Escape');
    await dialog().getByText('Close without saving?').waitFor();
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Keep them open');
    await inspect(page, 'key-created-closing');
    await dialog().getByRole('button', { name: 'Keep them open' }).click();
    await expect(dialog().getByText('Close without saving?').count()).resolves.toBe(0);
    await dialog().getByRole('button', { name: 'Close', exact: true }).click();
    await dialog().getByRole('button', { name: 'Close anyway' }).click();
    await dialog().waitFor({ state: 'detached' });
    await page.getByRole('row').filter({ hasText: 'ci runner' }).filter({ hasText: 'active' }).waitFor();
  });

  it('revokes one key after asking, and the other keys keep working', async () => {
    await page.getByRole('button', { name: 'Revoke key ci runner' }).click();
    await dialog().getByText('Revoke the key "ci runner"?').waitFor();
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Cancel');
    await inspect(page, 'key-revoke-confirm');
    await dialog().getByRole('button', { name: 'Revoke' }).click();
    await page.getByText('Key revoked').waitFor();
    await page.getByRole('row').filter({ hasText: 'ci runner' }).filter({ hasText: 'revoked' }).waitFor();
    await waitUntil(async () => (await models(namedKey)).status === 401, 'the revoked key to be refused');
  });

  it('asks before rotating with no grace period, and before resetting the Secret Key', async () => {
    const rows = await page.getByRole('row').count();
    await page.getByLabel('Grace period (seconds)').fill('0');
    await page.getByRole('button', { name: 'Rotate API key' }).click();
    await dialog().getByText('Rotate with no grace period?').waitFor();
    await inspect(page, 'rotate-confirm');
    await dialog().getByRole('button', { name: 'Cancel' }).click();
    await dialog().waitFor({ state: 'detached' });
    expect(await page.getByRole('row').count()).toBe(rows);
    await page.getByRole('button', { name: 'Rotate API key' }).click();
    await dialog().getByRole('button', { name: 'Rotate now' }).click();
    await dialog().getByTestId('secret-api-key').waitFor();
    await dialog().getByRole('button', { name: 'I have saved them' }).click();
    await dialog().waitFor({ state: 'detached' });

    await page.getByRole('button', { name: 'Reset secret key' }).click();
    await dialog().getByText('Reset the Secret Key?').waitFor();
    await inspect(page, 'reset-confirm');
    await page.keyboard.press('Escape');
    await dialog().waitFor({ state: 'detached' });
    await page.getByRole('button', { name: 'Reset secret key' }).click();
    await dialog().getByRole('button', { name: 'Reset secret key' }).click();
    await dialog().getByTestId('secret-secret-key').waitFor();
    await dialog().getByRole('button', { name: 'I have saved them' }).click();
  });

  it('gives a signed-request and a webhook snippet with this App ID in the Quick start', async () => {
    await page.getByRole('tab', { name: 'Quick start' }).click();
    await page.getByText('Signed request (App ID and Secret Key)').waitFor();
    await expect(page.locator('pre', { hasText: "const appId = '" }).textContent()).resolves.toContain(appId);
    await page.getByText('Verify a webhook').waitFor();
    await inspect(page, 'quick-start-signed');
  });
});
