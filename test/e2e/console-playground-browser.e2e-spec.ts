import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { BrowserContext, Page } from 'playwright-core';
import { ConsoleStack, inspect, lastCopied, startConsoleStack } from '../helpers/browser';
import { consoleClient, ConsoleUser } from '../helpers/console';
import { postJson, RunningApi, ROOT } from '../helpers/gateway';
import { noisyPng, solidPng } from '../helpers/images';

/**
 * The application's playground in a real browser against the real api, worker, Redis and FerretDB: chat streamed
 * over SSE, embeddings with their cosine similarities, an image edit with its results, each call made with the
 * application's own key on /v1. The curl and SDK code each run shows is run as shown and must get the same answer.
 */
jest.setTimeout(120_000);

/** Where the shown code is run: inside the checkout, so the Node snippet finds the `openai` package. */
const run = promisify(execFile);
const RUNS = path.join(ROOT, 'test-output', 'playground-runs');

describe('console playground in the browser', () => {
  let stack: ConsoleStack;
  let api: RunningApi;
  let context: BrowserContext;
  let page: Page;
  let apiKey: string;
  let appId: string;
  let user: ConsoleUser;
  const client = () => consoleClient(api.url);

  beforeAll(async () => {
    // Open sign-up: an ordinary account, signed in at once (no one becomes the operator by signing up first).
    stack = await startConsoleStack({ CONSOLE_SIGNUP: 'open' });
    api = stack.api;
    user = await client().register('player@example.com');
    const created = await client().call('POST', '/applications', user, { name: 'Playground app' });
    expect(created.status).toBe(201);
    ({ app_id: appId, api_key: apiKey } = created.body.credentials);
    context = await stack.newContext();
    const [name, value] = user.cookie.split(/=(.*)/s);
    await context.addCookies([{ name, value, url: api.url }]);
    page = await context.newPage();
    fs.rmSync(RUNS, { recursive: true, force: true });
    fs.mkdirSync(RUNS, { recursive: true });
  }, 180_000);

  afterAll(() => stack?.close(), 150_000);

  /**
   * Runs a shown snippet with bash in RUNS; curl also writes the HTTP status on the last line. Asynchronously: the
   * api answering it runs in this process.
   */
  async function runCurl(name: string, code: string): Promise<{ status: number; body: string }> {
    // Kept in the test output, as shown (but for the status line), to be read when a run fails.
    fs.writeFileSync(
      path.join(RUNS, name),
      code.replace(/^curl /, `curl -sS --max-time 30 -w '\\nHTTP %{http_code}' `),
    );
    const { stdout: output } = await run('bash', [name], { cwd: RUNS, encoding: 'utf8', timeout: 60_000 });
    const at = output.lastIndexOf('\nHTTP ');
    return { status: Number(output.slice(at + 6)), body: output.slice(0, at) };
  }

  /** The code shown in a language's tab, with the key revealed (the copy button copies exactly that). */
  async function shownCode(language: 'curl' | 'python' | 'node', label: string): Promise<string> {
    await page.getByRole('tab', { name: label, exact: true }).click();
    const code = (await page.getByTestId(`playground-code-${language}`).textContent())!;
    await page.getByRole('button', { name: `Copy the ${label} code` }).click();
    expect(await lastCopied(page)).toBe(code);
    return code;
  }

  it('offers the playground tab, asks for the key and says it stays in memory only', async () => {
    await page.goto(`/console/applications/${appId}`);
    await page.getByRole('tab', { name: 'Playground' }).click();
    await page.waitForURL(`**/console/applications/${appId}/playground`);
    await page.getByText('It stays in this page’s memory only').waitFor();
    await expect(page.getByRole('button', { name: 'Send' }).isDisabled()).resolves.toBe(true);
    await inspect(page, 'playground');
  });

  it('shows a wrong key’s 401 in the envelope’s words', async () => {
    const wrongKey = `sk-${'0'.repeat(49)}`;
    const direct = await postJson(`${api.url}/v1/chat/completions`, { model: 'x-chat', messages: [] }, wrongKey);
    expect(direct.status).toBe(401);
    await page.getByLabel('API key of this application').fill(wrongKey);
    await page.getByLabel('Message').fill('Hello?');
    await page.getByRole('button', { name: 'Send' }).click();
    await page.getByText('The gateway refused the call (401)').waitFor();
    await expect(page.getByTestId('playground-error').textContent()).resolves.toBe(
      `${direct.body.error.code}: ${direct.body.error.message}`,
    );
    await inspect(page, 'playground-refused');
  });

  it('answers a chat streamed over SSE, and its curl and Node code get the same stream', async () => {
    await page.getByLabel('API key of this application').fill(apiKey);
    await page.getByRole('button', { name: 'Clear' }).click();
    // The upstream chat model (the local one is not loaded in this suite).
    await page.getByRole('combobox', { name: 'Model' }).click();
    await page.getByRole('option', { name: 'x-chat', exact: true }).click();
    await page.getByLabel('Message').fill('Tell me about the fox');
    const [response] = await Promise.all([
      page.waitForResponse((answer) => answer.url().endsWith('/v1/chat/completions')),
      page.getByRole('button', { name: 'Send' }).click(),
    ]);
    expect({ status: response.status(), refusal: response.ok() ? '' : await response.text() }).toEqual({
      status: 200,
      refusal: '',
    });
    expect(response.headers()['content-type']).toContain('text/event-stream');
    const reply = page.getByTestId('chat-assistant');
    await reply.waitFor();
    const text = (await reply.textContent())!;
    expect(text.length).toBeGreaterThan(0);
    // The same text the SSE body carried, chunk by chunk.
    const streamed = (await response.text())
      .split('\n\n')
      .filter((event) => event.startsWith('data: {'))
      .map((event) => JSON.parse(event.slice(6)).choices[0]?.delta?.content ?? '')
      .join('');
    expect(text).toBe(streamed);

    // The key is masked until revealed.
    const masked = (await page.getByTestId('playground-code-curl').textContent())!;
    expect(masked).not.toContain(apiKey);
    expect(masked).toContain(`${apiKey.slice(0, 6)}••••`);
    await inspect(page, 'playground-chat');
    await page.getByRole('switch', { name: 'Show the key in the code' }).check();

    const curl = await runCurl('chat.sh', await shownCode('curl', 'curl'));
    expect(curl.status).toBe(200);
    expect(curl.body).toContain('data: [DONE]');
    const node = await shownCode('node', 'Node.js');
    expect(node).toContain(`apiKey: '${apiKey}'`);
    fs.writeFileSync(path.join(RUNS, 'chat.mjs'), node);
    const { stdout: printed } = await run('node', ['chat.mjs'], { cwd: RUNS, encoding: 'utf8', timeout: 60_000 });
    expect(printed.trim().length).toBeGreaterThan(0);
    expect(await shownCode('python', 'Python')).toContain('stream = client.chat.completions.create(');
  });

  it('embeds several inputs and shows their cosine similarities; the shown curl gets 200', async () => {
    await page.getByRole('tab', { name: 'Embeddings' }).click();
    await page.getByLabel('Inputs').fill('The cat sat on the mat\nThe cat sat on the mat\nQuarterly revenue rose');
    await page.getByRole('button', { name: 'Embed' }).click();
    const matrix = page.getByTestId('cosine-matrix');
    await matrix.waitFor();
    const cells = await matrix
      .locator('tbody tr')
      .evaluateAll((rows) =>
        rows.map((row) => [...row.querySelectorAll('td')].slice(1).map((cell) => Number(cell.textContent))),
      );
    expect(cells).toHaveLength(3);
    // Identical inputs: 1 on the diagonal and between #1 and #2; a symmetric matrix.
    expect(cells.map((row, index) => row[index])).toEqual([1, 1, 1]);
    expect(cells[0][1]).toBe(1);
    expect(cells[0][2]).toBe(cells[2][0]);
    expect(cells[0][2]).toBeLessThan(1);
    await page.getByText('3 vectors of 1024 dimensions').waitFor();
    await inspect(page, 'playground-embeddings');

    await page.getByRole('switch', { name: 'Show the key in the code' }).check();
    const curl = await runCurl('embeddings.sh', await shownCode('curl', 'curl'));
    expect(curl.status).toBe(200);
    expect(JSON.parse(curl.body).data).toHaveLength(3);
  });

  it('edits uploaded images and shows the results; a file that is no image is refused in the envelope’s words', async () => {
    await page.getByRole('tab', { name: 'Image edit' }).click();
    const upload = page.locator('input[type="file"]');
    await upload.setInputFiles([{ name: 'notes.png', mimeType: 'image/png', buffer: Buffer.from('not a picture') }]);
    await page.getByLabel('Instruction').fill('make it black and white');
    await page.getByRole('button', { name: 'Edit', exact: true }).click();
    await page.getByText('The gateway refused the call (400)').waitFor();
    await expect(page.getByTestId('playground-error').textContent()).resolves.toMatch(/^InvalidImage: /);
    await inspect(page, 'playground-image-refused');

    const photos = [
      { name: 'photo.png', mimeType: 'image/png', buffer: await noisyPng(320, 240) },
      { name: 'swatch.png', mimeType: 'image/png', buffer: await solidPng(200, 200, [200, 40, 40]) },
    ];
    await upload.setInputFiles(photos);
    await page.getByRole('button', { name: 'Edit', exact: true }).click();
    const result = page.getByRole('img', { name: 'Result 1' });
    await result.waitFor();
    // Loaded from the gateway's signed URL under the console's CSP.
    await page.waitForFunction(
      () => (document.querySelector<HTMLImageElement>('img[alt="Result 1"]')?.naturalWidth ?? 0) > 0,
    );
    await expect(result.evaluate((image: HTMLImageElement) => image.naturalWidth)).resolves.toBeGreaterThan(0);
    await inspect(page, 'playground-image-edit');

    // The curl reads the same files by name from the folder it runs in.
    for (const photo of photos) fs.writeFileSync(path.join(RUNS, photo.name), photo.buffer);
    await page.getByRole('switch', { name: 'Show the key in the code' }).check();
    const code = await shownCode('curl', 'curl');
    expect(code).toContain("$(base64 < 'photo.png' | tr -d '\\n')");
    const curl = await runCurl('image-edit.sh', code);
    expect(curl.status).toBe(200);
    expect(JSON.parse(curl.body).data).toHaveLength(1);
  });

  it('shows a daily limit’s 429 in the envelope’s words, with when to try again', async () => {
    const limited = await client().call('POST', '/applications', user, { name: 'Limited app', daily_call_limit: 1 });
    const { app_id: limitedId, api_key: limitedKey } = limited.body.credentials;
    const body = { model: 'text-embedding-v4', input: 'the one call of the day' };
    expect((await postJson(`${api.url}/v1/embeddings`, body, limitedKey)).status).toBe(200);
    const direct = await postJson(`${api.url}/v1/embeddings`, body, limitedKey);
    expect(direct.status).toBe(429);

    await page.goto(`/console/applications/${limitedId}/playground`);
    await page.getByLabel('API key of this application').fill(limitedKey);
    await page.getByRole('tab', { name: 'Embeddings' }).click();
    await page.getByLabel('Inputs').fill('one more');
    await page.getByRole('button', { name: 'Embed' }).click();
    await page.getByText('The gateway refused the call (429)').waitFor();
    await expect(page.getByTestId('playground-error').textContent()).resolves.toBe(
      `DailyLimitExceeded: ${direct.body.error.message}`,
    );
    await page.getByText(/^Try again in \d+ s\.$/).waitFor();
    await inspect(page, 'playground-limited');
  });

  it('makes a temporary key of one hour that the playground calls with', async () => {
    await page.goto(`/console/applications/${appId}/playground`);
    await page.getByRole('button', { name: 'Use a temporary key (1 hour)' }).click();
    await page.getByText(/^Key “playground-[0-9-]+” made for this page/).waitFor();
    const temporaryKey = await page.getByLabel('API key of this application').inputValue();
    expect(temporaryKey).toMatch(/^sk-[0-9A-Za-z]{49}$/);
    expect(temporaryKey).not.toBe(apiKey);
    await inspect(page, 'playground-temporary-key');

    const keys = await client().call('GET', `/applications/${appId}/keys`, user);
    const made = keys.body.data.find((key: { name: string }) => key.name.startsWith('playground-'));
    const lifetimeMs = Date.parse(made.expires_at) - Date.now();
    expect(lifetimeMs).toBeGreaterThan(55 * 60_000);
    expect(lifetimeMs).toBeLessThanOrEqual(60 * 60_000);

    await page.getByRole('tab', { name: 'Embeddings' }).click();
    await page.getByLabel('Inputs').fill('made with the temporary key');
    await page.getByRole('button', { name: 'Embed' }).click();
    await page.getByTestId('cosine-matrix').waitFor();
    expect(
      (await postJson(`${api.url}/v1/embeddings`, { model: 'text-embedding-v4', input: 'x' }, temporaryKey)).status,
    ).toBe(200);
  });
});
