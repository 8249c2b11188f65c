import { OperatorSetup } from '@gateway/tenancy';
import path from 'node:path';
import { Browser, BrowserContext, Page } from 'playwright-core';
import { ConsoleStack, inspect, PASSWORD, SCREENS, SHOTS, startConsoleStack } from '../helpers/browser';
import { RunningApi } from '../helpers/gateway';

/**
 * What every console page stands on, in a real browser against the real api and worker: signed-out answers, a session
 * that ends under the user, the limit fields, refusals of a whole form, the server's reasons in Chinese, dark mode.
 */
jest.setTimeout(120_000);

describe('console foundation in the browser', () => {
  let stack: ConsoleStack;
  let api: RunningApi;
  let browser: Browser;
  let operator: BrowserContext;
  let operatorPage: Page;

  beforeAll(async () => {
    stack = await startConsoleStack({ CONSOLE_SIGNUP: 'open' });
    ({ api, browser } = stack);
  }, 180_000);

  afterAll(() => stack?.close(), 150_000);

  /** Errors the page logs to the browser's console (a failed request is one). */
  function consoleErrors(page: Page): string[] {
    const errors: string[] = [];
    page.on('console', (message) => message.type() === 'error' && errors.push(message.text()));
    return errors;
  }

  /** Signs up on the one-time operator setup link (npm start prints one), or on the open sign-up. */
  async function signUp(page: Page, email: string, as: 'operator' | 'user' = 'user') {
    const setup =
      as === 'operator' ? (await stack.api.app.get(OperatorSetup).issueLink(stack.api.url)).link : undefined;
    await page.goto(setup ? setup.replace(stack.api.url, '') : '/console/sign-up');
    await page.getByLabel('Email').fill(email);
    await page.getByLabel(/^Password/).fill(PASSWORD);
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.getByRole('heading', { name: 'Applications' }).waitFor();
  }

  /** Saves, axe-checks and keyboard-walks the page (inspect), and at phone size nothing is wider than the screen. */
  async function inspectFits(page: Page, name: string) {
    await inspect(page, name);
    await page.setViewportSize(SCREENS.phone);
    await page.waitForTimeout(200);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    await page.setViewportSize(SCREENS.desktop);
    expect({ page: name, overflow }).toEqual({ page: name, overflow: 0 });
  }

  /** The session's CSRF token, as the console itself gets it. */
  async function csrfOf(context: BrowserContext): Promise<string> {
    const me = (await (await context.request.get('/console/api/auth/me')).json()) as { csrf_token: string };
    return me.csrf_token;
  }

  it('logs no error on a signed-out page: signed out is a normal answer', async () => {
    operator = await stack.newContext();
    operatorPage = await operator.newPage();
    const errors = consoleErrors(operatorPage);
    await operatorPage.goto('/console/');
    await operatorPage.getByRole('heading', { name: 'Sign in to the console' }).waitFor();
    await operatorPage.getByRole('link', { name: 'No account yet? Create one' }).click();
    await operatorPage.getByRole('heading', { name: 'Create your account' }).waitFor();
    expect(errors).toEqual([]);
  });

  it('clears a sign-up refusal once the user edits the form', async () => {
    await signUp(operatorPage, 'owner@example.com', 'operator');
    const visitor = await stack.newContext();
    const page = await visitor.newPage();
    await page.goto('/console/sign-up');
    await page.getByLabel('Email').fill('owner@example.com');
    await page.getByLabel(/^Password/).fill(PASSWORD);
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.getByRole('alert').filter({ hasText: 'already exists' }).waitFor();
    await page.getByLabel('Email').fill('someone.else@example.com');
    await page.getByRole('alert').waitFor({ state: 'detached' });
    await visitor.close();
  });

  it('refuses a negative limit with a field error instead of saving it without its minus', async () => {
    await operatorPage.getByRole('link', { name: 'New application' }).click();
    await operatorPage.getByLabel('Name').first().fill('Limits');
    await operatorPage.getByLabel('Daily call limit').fill('-1');
    await operatorPage.getByRole('button', { name: 'Create application' }).click();
    await operatorPage.getByText('Daily call limit must be 0 or more').waitFor();
    await expect(operatorPage.getByLabel('Daily call limit').inputValue()).resolves.toBe('-1');
    await expect(operatorPage.getByRole('dialog').count()).resolves.toBe(0);
    await inspectFits(operatorPage, 'foundation-negative-limit');
  });

  it('shows a refusal of the whole form beside its submit button, focused, where the user looks', async () => {
    // The operator's own account capped at no application at all: the next Create is refused as a whole.
    const me = (await (await operator.request.get('/console/api/auth/me')).json()) as { user: { id: string } };
    const capped = await operator.request.patch(`/console/api/admin/users/${me.user.id}`, {
      headers: { 'x-csrf-token': await csrfOf(operator) },
      data: { ceilings: { max_applications: 0 } },
    });
    expect(capped.status()).toBe(200);
    for (const [screen, size] of Object.entries(SCREENS)) {
      await operatorPage.setViewportSize(size);
      await operatorPage.getByLabel('Daily call limit').fill('0');
      await operatorPage.getByRole('button', { name: 'Create application' }).click();
      const alert = operatorPage.getByRole('alert').filter({ hasText: 'at most 0 applications' });
      await alert.waitFor();
      const box = (await alert.boundingBox())!;
      expect({ screen, top: box.y >= 0, bottom: box.y + box.height <= size.height }).toEqual({
        screen,
        top: true,
        bottom: true,
      });
      await expect(alert.evaluate((element) => element.contains(document.activeElement))).resolves.toBe(true);
    }
    await inspectFits(operatorPage, 'foundation-form-refused');
  });

  it("keeps the server's reason in Chinese: a callback URL at the cloud metadata address", async () => {
    const visitor = await browser.newContext({ baseURL: api.url, locale: 'zh-CN', viewport: SCREENS.desktop });
    const page = await visitor.newPage();
    await page.goto('/console/sign-up');
    await page.getByLabel('邮箱').fill('chinese@example.com');
    await page.getByLabel(/^密码/).fill(PASSWORD);
    await page.getByRole('button', { name: '创建账号', exact: true }).click();
    await page.getByRole('heading', { name: '应用' }).waitFor();
    await page.goto('/console/applications/new');
    await page.getByLabel('名称').first().fill('元数据');
    await page.getByLabel('回调地址').fill('https://169.254.169.254/latest/meta-data');
    await page.getByRole('button', { name: '创建应用' }).click();
    // The field's error: the translated summary naming the field, then the server's reason with the address.
    await page.getByText(/^“回调地址”的值被拒绝。原因：.*169\.254\.169\.254/).waitFor();
    await inspectFits(page, 'foundation-zh-refusal');
    await visitor.close();
  });

  it('takes a user whose session ended to sign-in, then back where they were', async () => {
    const member = await stack.newContext();
    const page = await member.newPage();
    await signUp(page, 'member@example.com');
    const created = await member.request.post('/console/api/applications', {
      headers: { 'x-csrf-token': await csrfOf(member) },
      data: { name: 'Sessions' },
    });
    const { id } = (await created.json()) as { id: string };
    await page.goto(`/console/applications/${id}/credentials`);
    await page.getByRole('tab', { name: 'Credentials', selected: true }).waitFor();
    // The session is ended behind the page's back (signed out elsewhere).
    await member.request.post('/console/api/auth/logout', { headers: { 'x-csrf-token': await csrfOf(member) } });
    await page.getByRole('tab', { name: 'Usage' }).click();
    await page.getByRole('heading', { name: 'Sign in to the console' }).waitFor();
    await expect(page.getByText('Something went wrong').count()).resolves.toBe(0);
    await page.getByLabel('Email').fill('member@example.com');
    await page.getByLabel(/^Password/).fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByRole('tab', { name: 'Usage', selected: true }).waitFor();
    expect(new URL(page.url()).pathname).toBe(`/console/applications/${id}/usage`);
    await member.close();
  });

  it('follows a dark system theme, readable (axe) at both sizes, and keeps a chosen theme', async () => {
    const dark = await stack.newContext({ colorScheme: 'dark' });
    const page = await dark.newPage();
    await page.goto('/console/sign-in');
    await page.getByLabel('Email').fill('owner@example.com');
    await page.getByLabel(/^Password/).fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByRole('heading', { name: 'Applications' }).waitFor();
    await expect(page.locator('html').getAttribute('data-mantine-color-scheme')).resolves.toBe('dark');
    await page.getByRole('link', { name: 'New application' }).click();
    await inspectFits(page, 'foundation-dark-new-application');
    // Every page and tab, dark, at both sizes: an application of the operator's own first (its ceiling lifted).
    const me = (await (await dark.request.get('/console/api/auth/me')).json()) as { user: { id: string } };
    const headers = { 'x-csrf-token': await csrfOf(dark) };
    await dark.request.patch(`/console/api/admin/users/${me.user.id}`, {
      headers,
      data: { ceilings: { max_applications: null } },
    });
    const created = await dark.request.post('/console/api/applications', { headers, data: { name: 'Dark' } });
    const { id } = (await created.json()) as { id: string };
    await page.goto('/console/applications');
    await page.getByRole('link', { name: 'Dark' }).waitFor();
    await inspectFits(page, 'foundation-dark-applications');
    for (const tab of ['credentials', 'quick-start', 'usage', 'requests', 'webhooks', 'playground', 'settings']) {
      await page.goto(`/console/applications/${id}/${tab}`);
      await page.getByRole('tabpanel').first().waitFor();
      await page.getByLabel('Loading…').waitFor({ state: 'detached' });
      await inspectFits(page, `foundation-dark-application-${tab}`);
    }
    for (const [path, heading] of [
      ['/dashboard', 'Dashboard'],
      ['/models', 'Model catalog'],
      ['/requests', 'Requests'],
      ['/audit', 'Audit log'],
      ['/admin/users', 'Users'],
      ['/admin/applications', undefined],
      ['/admin/system', 'System'],
    ] as const) {
      await page.goto(`/console${path}`);
      await (
        heading ? page.getByRole('heading', { name: heading, exact: true }) : page.getByRole('heading').first()
      ).waitFor();
      await page.getByLabel('Loading…').waitFor({ state: 'detached' });
      await inspectFits(page, `foundation-dark-${path.slice(1).replace('/', '-')}`);
    }
    // Chosen light in the header: kept over the system's dark after a reload.
    await page.getByRole('radio', { name: 'Light' }).dispatchEvent('click');
    await page.reload();
    await page.getByRole('heading', { name: 'System' }).waitFor();
    await expect(page.locator('html').getAttribute('data-mantine-color-scheme')).resolves.toBe('light');
    await page.screenshot({ path: path.join(SHOTS, 'foundation-light-chosen.png') });
    await dark.close();
  });
});
