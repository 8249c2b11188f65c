/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
import fs from 'node:fs';
import path from 'node:path';
import { Browser, BrowserContext, BrowserServer, chromium, Locator, Page } from 'playwright-core';
import { OpenAiFake } from '../fakes/openai-fake';
import { ROOT, RunningApi, startApi, startWorker, testEnv } from './gateway';

/** Where the browser suites leave their screenshots (README and reviewers look at them); not kept in git. */
export const SHOTS = path.join(ROOT, 'test-output', 'console');
export const SCREENS = { desktop: { width: 1280, height: 800 }, phone: { width: 390, height: 844 } } as const;
export const PASSWORD = 'violet staircase 42';
const AXE_SOURCE = fs.readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

/**
 * Waits for `work` at most `ms`: a teardown step that hangs must not keep the servers, and the run, alive. One that
 * runs out is named on stderr, so a slow machine's run says which step it was.
 */
export async function atMost(
  ms: number,
  step: string,
  work: (() => Promise<unknown> | undefined) | undefined,
): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), ms)));
  const done = Promise.resolve()
    .then(() => work?.())
    .catch(() => undefined);
  if ((await Promise.race([done, late])) === 'late') console.warn(`browser suite teardown: ${step} took over ${ms} ms`);
  clearTimeout(timer);
}

/** The real api, worker and upstream fake, and Debian's Chromium, for one browser suite. */
export interface ConsoleStack {
  api: RunningApi;
  upstream: OpenAiFake;
  browser: Browser;
  /** A browser context at desktop size whose copy buttons are noted (see `lastCopied`); closed by `close`. */
  newContext(options?: { locale?: string; colorScheme?: 'light' | 'dark' }): Promise<BrowserContext>;
  /** A page of a new context carrying a console session's cookie (`name=value`): signed in as its user. */
  signedInPage(cookie: string): Promise<Page>;
  close(): Promise<void>;
}

/**
 * Starts a console stack: a short auth cache (an edit shows on /v1 within 100 ms) and usage folded every 100 ms,
 * plus `env`. Call it in `beforeAll` with a 180 s timeout and `close` in `afterAll` with 150 s.
 */
export async function startConsoleStack(env: Record<string, string | number> = {}): Promise<ConsoleStack> {
  const upstream = new OpenAiFake();
  await upstream.start();
  const fullEnv = testEnv({
    CONSOLE_SIGNUP: 'invite',
    UPSTREAM_PRIMARY_BASE_URL: upstream.baseUrl,
    USAGE_FLUSH_MS: 100,
    AUTH_CACHE_TTL_MS: 100,
    ...env,
  });
  const [api, worker] = await Promise.all([startApi(fullEnv), startWorker(fullEnv)]);
  // A browser server rather than a bare launch: it can be killed if it does not close.
  const browserServer: BrowserServer = await chromium.launchServer({
    executablePath: '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-quic'],
    timeout: 90_000,
  });
  const browser = await chromium.connect(browserServer.wsEndpoint());
  fs.mkdirSync(SHOTS, { recursive: true });
  const contexts: BrowserContext[] = [];

  async function newContext(options: { locale?: string; colorScheme?: 'light' | 'dark' } = {}) {
    const context = await browser.newContext({
      baseURL: api.url,
      viewport: SCREENS.desktop,
      locale: options.locale ?? 'en-US',
      colorScheme: options.colorScheme ?? 'light',
    });
    contexts.push(context);
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: api.url });
    // What the copy buttons hand to the clipboard, noted on its way in: reading the system clipboard back depends on
    // window focus, which a headless browser on a CI machine does not always give.
    await context.addInitScript(() => {
      const clipboard = navigator.clipboard;
      const write = clipboard.writeText.bind(clipboard);
      clipboard.writeText = (text: string) => {
        (window as unknown as { copied: string[] }).copied = [
          ...((window as unknown as { copied?: string[] }).copied ?? []),
          text,
        ];
        return write(text);
      };
    });
    return context;
  }

  // Every step bounded (at most 100 s in all): the browser first, so it holds no connection the api's close would
  // wait for.
  async function close() {
    await atMost(10_000, 'closing the contexts', () => Promise.all(contexts.map((context) => context.close())));
    await atMost(10_000, 'closing the browser', () => browser.close());
    await atMost(10_000, 'closing the browser server', () => browserServer.close());
    await atMost(10_000, 'killing the browser', () => browserServer.kill());
    await atMost(45_000, 'closing the api and worker', () => Promise.all([api.close(), worker.close()]));
    await atMost(15_000, 'stopping the upstream fake', () => upstream.stop());
  }

  async function signedInPage(cookie: string) {
    const context = await newContext();
    const [name, value] = cookie.split('=');
    await context.addCookies([{ name, value, url: api.url }]);
    return context.newPage();
  }

  return { api, upstream, browser, newContext, signedInPage, close };
}

/** The text the last copy button put on the clipboard. */
export async function lastCopied(page: Page): Promise<string | undefined> {
  return page.evaluate(() => (window as unknown as { copied?: string[] }).copied?.at(-1));
}

/**
 * Saves the page at both screen sizes, runs axe-core on it at both (no serious or critical violation allowed) and
 * walks it with the Tab key: every control a pointer can use must take the keyboard focus too.
 */
export async function inspect(page: Page, name: string): Promise<void> {
  // Toasts of earlier steps would cover the header in the screenshots.
  for (const close of await page.locator('.mantine-Notification-closeButton').all()) await close.click();
  for (const [screen, size] of Object.entries(SCREENS)) {
    await page.setViewportSize(size);
    await page.waitForTimeout(200);
    await page.screenshot({ path: path.join(SHOTS, `${name}-${screen}.png`), fullPage: true });
    // Checked at rest: no pointer over a control, no colour transition under way.
    await page.mouse.move(0, 0);
    await page.waitForTimeout(300);
    expect({ page: name, screen, violations: await axeViolations(page) }).toEqual({
      page: name,
      screen,
      violations: [],
    });
  }
  await page.setViewportSize(SCREENS.desktop);
  expect({ page: name, missedByKeyboard: await missedByKeyboard(page) }).toEqual({
    page: name,
    missedByKeyboard: [],
  });
}

/** axe-core's serious and critical findings on the page as it is now. */
export async function axeViolations(page: Page): Promise<string[]> {
  // Evaluated through the DevTools protocol: the page's CSP (no inline script) stays on.
  await page.evaluate(AXE_SOURCE);
  return page.evaluate(async () => {
    const results = await (
      window as unknown as {
        axe: {
          run(
            context: Document,
          ): Promise<{ violations: { id: string; impact: string; nodes: { target: string[] }[] }[] }>;
        };
      }
    ).axe.run(document);
    return results.violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
  });
}

/** Presses Tab until `target` has the focus, as a keyboard user reaches it. */
export async function tabTo(page: Page, target: Locator): Promise<void> {
  for (let press = 0; press < 60; press++) {
    await page.keyboard.press('Tab');
    if (await target.evaluate((element) => element === document.activeElement)) return;
  }
  throw new Error(`Tab never reached ${target.toString()}`);
}

/** The visible controls (inside the open dialog, if any) that pressing Tab round the page never focuses. */
export async function missedByKeyboard(page: Page): Promise<string[]> {
  const controls = await page.evaluate(() => {
    const scope = document.querySelector('[role="dialog"]') ?? document.body;
    const names: string[] = [];
    const radioGroups = new Map<string, number>();
    for (const element of scope.querySelectorAll<HTMLElement>('a[href], button, input, select, textarea, [tabindex]')) {
      delete element.dataset.walk;
      const disabled = (element as HTMLButtonElement).disabled || element.getAttribute('aria-disabled') === 'true';
      const input = element instanceof HTMLInputElement ? element : undefined;
      if (disabled || element.tabIndex < 0 || input?.type === 'hidden') continue;
      if (element.getClientRects().length === 0 || getComputedStyle(element).visibility === 'hidden') continue;
      // A radio group is one stop: arrow keys move inside it.
      if (input?.type === 'radio' && radioGroups.has(input.name)) {
        element.dataset.walk = String(radioGroups.get(input.name));
        continue;
      }
      if (input?.type === 'radio') radioGroups.set(input.name, names.length);
      element.dataset.walk = String(names.length);
      names.push(
        `${element.tagName.toLowerCase()} "${(element.getAttribute('aria-label') ?? element.textContent ?? element.id).trim().slice(0, 40)}"`,
      );
    }
    (document.activeElement as HTMLElement | null)?.blur();
    return names;
  });
  const reached = new Set<string>();
  for (let press = 0; press < controls.length * 2 + 10 && reached.size < controls.length; press++) {
    await page.keyboard.press('Tab');
    const walk = await page.evaluate(() => (document.activeElement as HTMLElement | null)?.dataset.walk);
    if (walk !== undefined) reached.add(walk);
  }
  // Leave the page as a pointer user would find it.
  await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
  return controls.filter((_, index) => !reached.has(String(index)));
}
