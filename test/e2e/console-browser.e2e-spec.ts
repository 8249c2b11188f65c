import { OperatorSetup } from '@gateway/tenancy';
import path from 'node:path';
import { Browser, BrowserContext, Page } from 'playwright-core';
import { ConsoleStack, inspect, lastCopied, PASSWORD, SHOTS, startConsoleStack, tabTo } from '../helpers/browser';
import { postJson, RunningApi, waitUntil } from '../helpers/gateway';

/**
 * The web console in a real browser (Debian's Chromium through playwright-core) against the real api, worker, Redis
 * and FerretDB: what an operator and a user do, end to end, including what their clicks change on /v1. Every page
 * is saved at both screen sizes, checked by axe-core and walked with the Tab key.
 */
jest.setTimeout(120_000);

describe('console in the browser', () => {
  let stack: ConsoleStack;
  let api: RunningApi;
  let browser: Browser;
  let operator: BrowserContext;
  let member: BrowserContext;

  beforeAll(async () => {
    stack = await startConsoleStack();
    ({ api, browser } = stack);
  }, 180_000);

  afterAll(() => stack?.close(), 150_000);

  const newContext = () => stack.newContext();

  let operatorPage: Page;
  let memberPage: Page;
  let apiKey: string;
  let appId: string;

  it('makes the operator through the setup link npm start prints, who invites the next one', async () => {
    operator = await newContext();
    operatorPage = await operator.newPage();
    const response = await operatorPage.goto('/console/');
    expect(response!.headers()['content-security-policy']).toContain("script-src 'self'");
    await operatorPage.getByRole('heading', { name: 'Sign in to the console' }).waitFor();
    await inspect(operatorPage, 'sign-in');
    await operatorPage.getByRole('link', { name: 'No account yet? Create one' }).click();
    await inspect(operatorPage, 'sign-up');
    // Being first to sign up makes no one the operator: without an invitation it is refused.
    await operatorPage.getByLabel('Email').fill('owner@example.com');
    await operatorPage.getByLabel(/^Password/).fill(PASSWORD);
    await operatorPage.getByRole('button', { name: 'Create account' }).click();
    await expect(operatorPage.getByRole('alert').textContent()).resolves.toMatch(/invitation/i);
    const { link: setupLink } = await api.app.get(OperatorSetup).issueLink(api.url);
    await operatorPage.goto(setupLink.replace(api.url, ''));
    await operatorPage.getByLabel('Email').fill('owner@example.com');
    await operatorPage.getByLabel(/^Password/).fill(PASSWORD);
    await operatorPage.getByRole('button', { name: 'Create account' }).click();
    await operatorPage.getByRole('heading', { name: 'Applications' }).waitFor();
    // Operators see the operators' pages.
    await operatorPage.getByRole('link', { name: 'Users' }).click();
    await operatorPage.getByRole('button', { name: 'Create invitation' }).click();
    const link = await operatorPage.getByTestId('invitation-link').textContent();
    expect(link).toMatch(/\/console\/sign-up\?invitation=[0-9A-Za-z]{32}$/);
    await inspect(operatorPage, 'users');

    member = await newContext();
    memberPage = await member.newPage();
    // A wrong password is said so. Typed by keyboard only: Tab to each field, Enter to send.
    await memberPage.goto('/console/sign-in');
    await memberPage.getByRole('heading', { name: 'Sign in to the console' }).waitFor();
    await tabTo(memberPage, memberPage.getByLabel('Email'));
    await memberPage.keyboard.type('owner@example.com');
    await tabTo(memberPage, memberPage.getByLabel(/^Password/));
    await memberPage.keyboard.type('not the password');
    await memberPage.keyboard.press('Enter');
    await expect(memberPage.getByRole('alert').textContent()).resolves.toMatch(/password/i);

    await memberPage.goto(link!.replace(api.url, ''));
    await memberPage.getByLabel('Email').fill('member@example.com');
    await memberPage.getByLabel(/^Password/).fill(PASSWORD);
    await memberPage.getByRole('button', { name: 'Create account' }).click();
    await memberPage.getByRole('heading', { name: 'Applications' }).waitFor();
    await expect(memberPage.getByRole('link', { name: 'Users' }).count()).resolves.toBe(0);
  });

  it('creates an application with every field, whose copied API key calls /v1', async () => {
    await memberPage.getByRole('link', { name: 'New application' }).click();
    await inspect(memberPage, 'new-application');
    // The form refuses what the API would, with the same words, before sending anything.
    await memberPage.getByLabel('IP whitelist').fill('10.0.0.0/33');
    await memberPage.getByLabel('Name').first().click();
    await memberPage.getByText('"10.0.0.0/33" is not an IPv4/IPv6 address or CIDR range').waitFor();

    await memberPage.getByLabel('Name').first().fill('Photo studio');
    await memberPage.getByLabel('Description').fill('Edits product photos');
    await memberPage.getByRole('combobox', { name: 'Type' }).click();
    await memberPage.getByRole('option', { name: 'Web' }).click();
    await memberPage.getByLabel('Usage scenario').fill('Catalogue retouching');
    await memberPage.getByLabel('Expected calls per day').fill('500');
    await memberPage.getByRole('checkbox', { name: 'embeddings' }).check();
    await memberPage.getByLabel('Daily call limit').fill('1000');
    await memberPage.getByLabel('Concurrency limit').fill('4');
    await memberPage.getByLabel('Requests per minute').fill('600');
    await memberPage.getByLabel('Token quota').fill('1000000');
    await memberPage.getByLabel('IP whitelist').fill('127.0.0.1\n10.0.0.0/8');
    await memberPage.getByLabel('Callback URL').fill('https://93.184.215.14/hooks/gateway');
    await memberPage.getByRole('button', { name: 'Create application' }).click();

    const dialog = memberPage.getByRole('dialog');
    await dialog.getByText('they will not be shown again').waitFor();
    await dialog.getByRole('button', { name: 'Copy API Key' }).click();
    apiKey = (await lastCopied(memberPage))!;
    expect(apiKey).toBe(await memberPage.getByTestId('secret-api-key').inputValue());
    appId = await memberPage.getByTestId('secret-app-id').inputValue();
    await inspect(memberPage, 'credentials-once');
    await dialog.getByRole('button', { name: 'I have saved them' }).click();
    await memberPage.waitForURL(`**/console/applications/${appId}`);
    await inspect(memberPage, 'credentials');

    const call = await postJson(
      `${api.url}/v1/embeddings`,
      { model: 'text-embedding-v4', input: 'from the console test' },
      apiKey,
    );
    expect(call.status).toBe(200);

    await memberPage.getByRole('tab', { name: 'Quick start' }).click();
    await memberPage.getByRole('tab', { name: 'Node.js' }).first().waitFor();
    await inspect(memberPage, 'quick-start');
    await memberPage.getByRole('tab', { name: 'Webhooks' }).click();
    await memberPage
      .getByText(/^(Outcome|No deliveries in this range\.)$/)
      .first()
      .waitFor();
    await inspect(memberPage, 'webhooks');
    await memberPage.getByRole('link', { name: 'Models' }).click();
    await memberPage.getByRole('heading', { name: 'Model catalog' }).waitFor();
    await memberPage.getByText('text-embedding-v4').first().waitFor();
    await inspect(memberPage, 'models');
    await memberPage.goBack();
    await memberPage.goBack();
  });

  it('shows that call on the usage page, in the chart and the table', async () => {
    await memberPage.getByRole('tab', { name: 'Usage' }).click();
    const byModel = memberPage.getByTestId('usage-by-model');
    await waitUntil(async () => {
      if (
        (await byModel.count()) > 0 &&
        /text-embedding-v4\s*1\b/.test((await byModel.innerText()).replace(/\t/g, ' '))
      )
        return true;
      // Roll-ups land within USAGE_FLUSH_MS; the page reads them when the range changes or the tab reopens.
      await memberPage.getByRole('tab', { name: 'Webhooks' }).click();
      await memberPage.getByRole('tab', { name: 'Usage' }).click();
      await memberPage.waitForTimeout(200);
      return false;
    }, 'the call in the usage table');
    // Calls, tokens and cost: an embeddings application has no images chart.
    await expect(memberPage.locator('.recharts-surface').count()).resolves.toBeGreaterThanOrEqual(3);
    await inspect(memberPage, 'usage');
  });

  it('applies a whitelist edit, a rotation and an operator disabling the account on /v1', async () => {
    await memberPage.getByRole('tab', { name: 'Settings' }).click();
    await inspect(memberPage, 'settings');
    await memberPage.getByLabel('IP whitelist').fill('10.0.0.0/8');
    await memberPage.getByRole('button', { name: 'Save' }).click();
    await memberPage.getByText('Saved').waitFor();
    await waitUntil(
      async () =>
        (await postJson(`${api.url}/v1/embeddings`, { model: 'text-embedding-v4', input: 'x' }, apiKey)).status === 403,
      'the whitelist to refuse 127.0.0.1',
    );

    await memberPage.getByLabel('IP whitelist').fill('127.0.0.1');
    await memberPage.getByRole('button', { name: 'Save' }).click();
    await waitUntil(
      async () =>
        (await postJson(`${api.url}/v1/embeddings`, { model: 'text-embedding-v4', input: 'x' }, apiKey)).status === 200,
      'the whitelist to admit 127.0.0.1 again',
    );

    await memberPage.getByRole('tab', { name: 'Credentials' }).click();
    await memberPage.getByLabel('Grace period (seconds)').fill('4');
    await memberPage.getByRole('button', { name: 'Rotate API key' }).click();
    const newKey = await memberPage.getByTestId('secret-api-key').inputValue();
    expect(newKey).not.toBe(apiKey);
    await memberPage.getByRole('button', { name: 'I have saved them' }).click();
    expect(
      (await postJson(`${api.url}/v1/embeddings`, { model: 'text-embedding-v4', input: 'x' }, apiKey)).status,
    ).toBe(200);
    await waitUntil(
      async () =>
        (await postJson(`${api.url}/v1/embeddings`, { model: 'text-embedding-v4', input: 'x' }, apiKey)).status === 401,
      'the old key to expire',
      15_000,
    );
    expect(
      (await postJson(`${api.url}/v1/embeddings`, { model: 'text-embedding-v4', input: 'x' }, newKey)).status,
    ).toBe(200);
    apiKey = newKey;

    await memberPage.getByRole('link', { name: 'Applications' }).click();
    await inspect(memberPage, 'applications');

    // The operator has had the users page open since inviting: a reload shows the account that joined since.
    await operatorPage.reload();
    // By keyboard, as the page must allow.
    await operatorPage.getByRole('switch', { name: 'Disabled member@example.com' }).focus();
    await operatorPage.keyboard.press('Space');
    // Disabling asks first; the confirming button is reached by Tab from the dialog's first focus (Cancel).
    await operatorPage.getByRole('dialog', { name: 'Disable member@example.com?' }).waitFor();
    await operatorPage.keyboard.press('Tab');
    await operatorPage.keyboard.press('Enter');
    await waitUntil(
      async () =>
        (await postJson(`${api.url}/v1/embeddings`, { model: 'text-embedding-v4', input: 'x' }, apiKey)).status === 401,
      "the disabled account's key to stop working",
    );
    await operatorPage.getByRole('link', { name: 'System' }).click();
    await operatorPage.getByRole('cell', { name: 'embeddings', exact: true }).waitFor();
    await inspect(operatorPage, 'system');
  });

  it("shows the audit log: the member's key rotation and the operator disabling the account, with the address", async () => {
    await operatorPage.getByRole('link', { name: 'Audit log' }).click();
    await operatorPage.getByRole('heading', { name: 'Audit log' }).waitFor();
    const disabled = operatorPage.getByRole('row').filter({ hasText: 'user.update' }).first();
    await disabled.getByText('disabled: false → true').waitFor();
    await expect(disabled.innerText()).resolves.toContain('127.0.0.1');
    // Everyone's records for an operator: the member's own actions on their application are listed too.
    await operatorPage.getByRole('row').filter({ hasText: 'key.rotate' }).filter({ hasText: appId }).first().waitFor();
    await operatorPage.getByRole('row').filter({ hasText: 'application.create' }).filter({ hasText: appId }).waitFor();
    await inspect(operatorPage, 'audit');
  });

  it('renders the applications page in Chinese with no English left', async () => {
    await operatorPage.getByRole('link', { name: 'Applications' }).click();
    // The header's switch (the menu holds another, shown on a phone only).
    await operatorPage.getByRole('banner').getByText('中文', { exact: true }).click();
    await operatorPage.getByRole('heading', { name: '应用' }).waitFor();
    const text = await operatorPage.locator('body').innerText();
    // What is not the console's to translate: the account's email, the language switch's own label, and "API", which
    // Chinese writes as it is ("API 密钥").
    const left =
      text
        .replace(/owner@example\.com/g, '')
        .replace(/\b(EN|API)\b/g, '')
        .match(/[A-Za-z]{2,}/g) ?? [];
    expect(left).toEqual([]);
    await operatorPage.screenshot({ path: path.join(SHOTS, 'applications-zh-CN.png'), fullPage: true });

    // The server's refusals too, in a browser that asks for Chinese: a wrong password.
    const visitor = await browser.newContext({ baseURL: api.url, locale: 'zh-CN' });
    const page = await visitor.newPage();
    await page.goto('/console/sign-in');
    await page.getByLabel('邮箱').fill('owner@example.com');
    await page.getByLabel(/^密码/).fill('not the password');
    await page.getByRole('button', { name: '登录', exact: true }).click();
    await expect(page.getByRole('alert').textContent()).resolves.toBe('邮箱或密码错误。');
    await visitor.close();
  });
});
