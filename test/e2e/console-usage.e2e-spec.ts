import { LATENCY_BUCKETS_MS } from '@gateway/common';
import { OpenAiFake } from '../fakes/openai-fake';
import { consoleClient, ConsoleUser } from '../helpers/console';
import { checkContract } from '../helpers/contract';
import { postJson, RunningApi, startApi, startWorker, testEnv, waitFor } from '../helpers/gateway';

/** RFC 4180 as the exports write it: CRLF rows, quoted cells with doubled quotes; rows as header → cell. */
function parseCsv(text: string): Record<string, string>[] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    if (quoted && char === '"' && text[i + 1] === '"') {
      cell += '"';
      i++;
    } else if (char === '"') {
      quoted = !quoted;
    } else if (!quoted && char === ',') {
      row.push(cell);
      cell = '';
    } else if (!quoted && char === '\r' && text[i + 1] === '\n') {
      rows.push([...row, cell]);
      row = [];
      cell = '';
      i++;
    } else {
      cell += char;
    }
  }
  const [header, ...body] = rows;
  return body.map((cells) => Object.fromEntries(header.map((name, i) => [name, cells[i]])));
}

describe('console API: usage a person reads, and the catalog for people', () => {
  const upstream = new OpenAiFake();
  let api: RunningApi;
  let worker: { close(): Promise<void> };
  const day = new Date().toISOString().slice(0, 10);

  beforeAll(async () => {
    await upstream.start();
    const env = testEnv({ UPSTREAM_PRIMARY_BASE_URL: upstream.baseUrl, USAGE_FLUSH_MS: 100 });
    [api, worker] = await Promise.all([startApi(env), startWorker(env)]);
  });

  afterAll(async () => {
    await Promise.all([api?.close(), worker?.close()]);
    await upstream.stop();
  });

  const call = (...args: Parameters<ReturnType<typeof consoleClient>['call']>) => consoleClient(api.url).call(...args);

  async function csv(path: string, user: ConsoleUser) {
    const response = await fetch(`${api.url}/console/api${path}`, { headers: { cookie: user.cookie } });
    const text = await response.text();
    await checkContract('GET', `${api.url}/console/api${path}`, {
      status: response.status,
      headers: response.headers,
      body: response.headers.get('content-type')?.startsWith('application/json') ? JSON.parse(text) : text,
    });
    return { response, text };
  }

  async function appWithCalls(user: ConsoleUser, name: string, chats: number) {
    const app = (
      await call('POST', '/applications', user, {
        name,
        scope: { capabilities: ['chat', 'embeddings'], models: [] },
      })
    ).body;
    for (let i = 0; i < chats; i++) {
      const answer = await postJson(
        `${api.url}/v1/chat/completions`,
        { model: 'x-chat', messages: [{ role: 'user', content: `count the tokens of call ${i}, please` }] },
        app.credentials.api_key,
      );
      expect(answer.status).toBe(200);
    }
    return app as { id: string; name: string };
  }

  const rolledUp = (user: ConsoleUser, appId: string, calls: number) =>
    waitFor(
      () => call('GET', `/applications/${appId}/usage?from=${day}&to=${day}`, user),
      (answer) => answer.body.total?.calls === calls,
      'the usage to be rolled up',
    );

  it('keeps input and output tokens apart and gives latency percentiles per model from real calls', async () => {
    const user = await consoleClient(api.url).register('tokens@example.com');
    const app = await appWithCalls(user, 'tokens', 3);
    const series = (await rolledUp(user, app.id, 3)).body;
    expect(series.capabilities).toEqual(['chat', 'embeddings']);
    const chat = series.by_model.find((row: { model: string }) => row.model === 'x-chat');
    expect(chat.prompt_tokens).toBeGreaterThan(0);
    expect(chat.completion_tokens).toBeGreaterThan(0);
    expect(LATENCY_BUCKETS_MS).toContain(chat.latency_p50_ms);
    expect(LATENCY_BUCKETS_MS).toContain(chat.latency_p95_ms);
    expect(chat.latency_p95_ms).toBeGreaterThanOrEqual(chat.latency_p50_ms);
    expect(series.total.latency_p50_ms).toBe(chat.latency_p50_ms);
    expect(series.data[0]).toMatchObject({ day, model: 'x-chat', calls: 3 });
  });

  it('adds every application of the account up on the dashboard, and nobody else’s', async () => {
    const user = await consoleClient(api.url).register('dashboard@example.com');
    const stranger = await consoleClient(api.url).register('stranger-dash@example.com');
    const [first, second] = [await appWithCalls(user, 'first', 2), await appWithCalls(user, 'second', 1)];
    await appWithCalls(stranger, 'not yours', 1);
    await rolledUp(user, first.id, 2);
    await rolledUp(user, second.id, 1);
    const idle = (await call('POST', '/applications', user, { name: 'idle' })).body;
    const account = (await call('GET', `/usage?from=${day}&to=${day}`, user)).body;
    expect(account.by_app.map((row: { app_id: string; calls: number }) => [row.app_id, row.calls])).toEqual([
      [first.id, 2],
      [second.id, 1],
      [idle.id, 0],
    ]);
    expect(account.by_app[0].name).toBe('first');
    expect(account.total.calls).toBe(3);
    expect(account.by_day).toEqual([expect.objectContaining({ day, calls: 3 })]);
    expect(account.by_model).toEqual([expect.objectContaining({ model: 'x-chat', calls: 3 })]);
    expect(LATENCY_BUCKETS_MS).toContain(account.total.latency_p95_ms);
    const firstSeries = (await call('GET', `/applications/${first.id}/usage?from=${day}&to=${day}`, user)).body;
    const secondSeries = (await call('GET', `/applications/${second.id}/usage?from=${day}&to=${day}`, user)).body;
    expect(BigInt(account.total.cost_nanos)).toBe(
      BigInt(firstSeries.total.cost_nanos) + BigInt(secondSeries.total.cost_nanos),
    );
  });

  it('exports usage as CSV: every charge, tokens and images alike, for an application and for the account', async () => {
    const user = await consoleClient(api.url).register('export@example.com');
    const app = await appWithCalls(user, 'export, "quoted"', 2);
    const series = (await rolledUp(user, app.id, 2)).body;
    const exported = await csv(`/applications/${app.id}/usage/export?from=${day}&to=${day}`, user);
    expect(exported.response.status).toBe(200);
    expect(exported.response.headers.get('content-type')).toMatch(/^text\/csv/);
    expect(exported.response.headers.get('content-disposition')).toBe(
      `attachment; filename="usage-${app.id}-${day}-${day}.csv"`,
    );
    const rows = parseCsv(exported.text);
    expect(rows).toEqual([
      {
        app_id: app.id,
        app_name: 'export, "quoted"',
        day,
        model: 'x-chat',
        calls: '2',
        errors: '0',
        prompt_tokens: String(series.total.prompt_tokens),
        completion_tokens: String(series.total.completion_tokens),
        images: '0',
        cost: series.total.cost,
        currency: series.currency,
        latency_p50_ms: String(series.total.latency_p50_ms),
        latency_p95_ms: String(series.total.latency_p95_ms),
      },
    ]);
    const other = await appWithCalls(user, '=1+1', 1);
    await rolledUp(user, other.id, 1);
    const account = parseCsv((await csv(`/usage/export?from=${day}&to=${day}`, user)).text);
    expect(account.map((row) => [row.app_name, row.calls])).toEqual([
      ['export, "quoted"', '2'],
      // A spreadsheet does not run a name as a formula.
      ["'=1+1", '1'],
    ]);
    const empty = await csv(`/usage/export?from=2020-01-01&to=2020-01-02`, user);
    expect(empty.text.split('\r\n')[0]).toMatch(/^app_id,app_name,day,model,calls,errors,prompt_tokens/);
    expect(parseCsv(empty.text)).toEqual([]);
  });

  it('refuses a reversed date range with a 400 in the envelope, on every usage route', async () => {
    const user = await consoleClient(api.url).register('reversed@example.com');
    const app = (await call('POST', '/applications', user, { name: 'reversed' })).body;
    const reversed = 'from=2026-03-10&to=2026-03-01';
    for (const answer of [
      await call('GET', `/applications/${app.id}/usage?${reversed}`, user),
      await call('GET', `/usage?${reversed}`, user),
      await call('GET', `/applications/${app.id}/billing?${reversed}`, user),
    ]) {
      expect(answer.status).toBe(400);
      expect(answer.body.error).toMatchObject({ code: 'InvalidParameter', param: 'from' });
      expect(answer.body.error.message).toMatch(/from must not be after to/);
    }
    for (const path of [`/applications/${app.id}/usage/export?${reversed}`, `/usage/export?${reversed}`]) {
      const answer = await csv(path, user);
      expect(answer.response.status).toBe(400);
      expect(JSON.parse(answer.text).error).toMatchObject({ code: 'InvalidParameter', param: 'from' });
    }
  });

  it('lists the catalog for people: prices per 1M tokens or per image, where each runs and what it accepts', async () => {
    const user = await consoleClient(api.url).register('catalog@example.com');
    const catalog = (await call('GET', '/models', user)).body;
    const model = (id: string) => catalog.data.find((entry: { id: string }) => entry.id === id);
    expect(catalog.currency).toBe('CNY');
    expect(model('x-chat')).toMatchObject({
      prices: [
        { unit: '1m_input_tokens', amount: '0.8' },
        { unit: '1m_output_tokens', amount: '2' },
      ],
      free: false,
      runs_on: ['upstream'],
      accepts: { tools: true, structured_output: true, vision: true, dimensions: null },
    });
    expect(model('x-image-edit-plus-2025-12-15')).toMatchObject({
      prices: [{ unit: 'image', amount: '0.2' }],
      runs_on: ['local'],
      aliases: ['x-image-edit-plus'],
      snapshots: expect.arrayContaining(['x-image-edit-plus-2025-10-30']),
    });
    expect(model('smollm2-135m-instruct')).toMatchObject({ free: true, runs_on: ['local'] });
    expect(model('text-embedding-v4').accepts.dimensions).toEqual(expect.arrayContaining([1024]));
    expect(model('unrouted-chat')).toMatchObject({ available: false, runs_on: [], prices: [], free: true });
  });
});
