import { utcDay, utcDaysBefore } from '@gateway/common';
import { OpenAiFake } from '../fakes/openai-fake';
import { consoleClient, ConsoleUser } from '../helpers/console';
import { RunningApi, RunningWorker, startApi, startWorker, testEnv, waitFor } from '../helpers/gateway';

interface Listed {
  id: string;
  model: string;
  status: string;
  key_id: string | null;
  async: boolean | null;
  error: { code: string } | null;
}

/**
 * docs/contracts.md (Refused calls, console API): the console's Requests listings are filtered on the server, the
 * calls that became tasks by one of model, status, error code, key and mode within the day range (each a feed read by
 * index), and the refused ones by any of them together.
 */
describe('console API: Requests filters', () => {
  const upstream = new OpenAiFake({ delayMs: 0 });
  let api: RunningApi;
  let worker: RunningWorker;
  let user: ConsoleUser;
  let appId: string;
  let firstKey: { id: string; secret: string };
  let secondKey: { id: string; secret: string };
  /** The task ids of the calls made in beforeAll, by what each was. */
  const tasks: Record<'first' | 'second' | 'otherModel' | 'failed', string> = {
    first: '',
    second: '',
    otherModel: '',
    failed: '',
  };

  const call = (method: string, path: string) => consoleClient(api.url).call(method, path, user);
  const embeddings = (key: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${api.url}/v1/embeddings`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}`, ...headers },
      body: JSON.stringify(body),
    });
  const ids = async (query: string): Promise<string[]> => {
    const page = await call('GET', `/applications/${appId}/tasks?${query}`);
    expect(page.status).toBe(200);
    return (page.body.data as Listed[]).map((task) => task.id).sort();
  };
  const sorted = (...values: string[]) => [...values].sort();

  beforeAll(async () => {
    await upstream.start();
    const env = testEnv({ UPSTREAM_PRIMARY_BASE_URL: upstream.baseUrl, AUTH_CACHE_TTL_MS: 100 });
    [api, worker] = await Promise.all([startApi(env), startWorker(env)]);
    user = await consoleClient(api.url).register('filters@example.com');
    const app = await consoleClient(api.url).call('POST', '/applications', user, { name: 'filtered' });
    appId = app.body.id;
    const keys = await call('GET', `/applications/${appId}/keys`);
    firstKey = { id: keys.body.data[0].id, secret: app.body.credentials.api_key };
    const second = await consoleClient(api.url).call('POST', `/applications/${appId}/keys`, user, { name: 'second' });
    secondKey = { id: second.body.id, secret: second.body.api_key };

    const taskOf = (response: Response) => response.headers.get('x-task-id') ?? '';
    const first = await embeddings(firstKey.secret, { model: 'text-embedding-v4', input: 'one' });
    expect(first.status).toBe(200);
    tasks.first = taskOf(first);
    const queued = await embeddings(
      secondKey.secret,
      { model: 'text-embedding-v4', input: 'two' },
      { 'x-async': 'enable' },
    );
    expect(queued.status).toBe(202);
    tasks.second = taskOf(queued);
    const other = await embeddings(firstKey.secret, { model: 'openai-embedding', input: 'three' });
    expect(other.status).toBe(200);
    tasks.otherModel = taskOf(other);
    upstream.failNext({
      times: 1,
      status: 400,
      body: { error: { message: 'input contains forbidden text', type: 'invalid_request_error' } },
    });
    const failed = await embeddings(firstKey.secret, { model: 'text-embedding-v4', input: 'four' });
    expect(failed.status).toBe(400);
    tasks.failed = taskOf(failed);
    expect(Object.values(tasks).every((id) => id.startsWith('task_'))).toBe(true);

    // Refused before the queue: no task.
    expect((await embeddings(secondKey.secret, { model: 'text-embedding-v4' })).status).toBe(400);
    expect((await embeddings(firstKey.secret, { model: 'openai-embedding' }, { 'x-async': 'enable' })).status).toBe(
      400,
    );

    await waitFor(
      () => ids('limit=200'),
      (listed) => listed.length === 4,
      'the four tasks to be recorded',
    );
    await waitFor(
      async () => (await call('GET', `/applications/${appId}/refusals`)).body.data.length,
      (count) => count === 2,
      'the two refusals to be written',
    );
  }, 120_000);

  afterAll(async () => {
    await Promise.all([api?.close(), worker?.close()]);
    await upstream.stop();
  });

  it('lists tasks of one model', async () => {
    expect(await ids('model=openai-embedding')).toEqual([tasks.otherModel]);
    expect(await ids('model=text-embedding-v4')).toEqual(sorted(tasks.first, tasks.second, tasks.failed));
    expect(await ids('model=x-chat')).toEqual([]);
  });

  it('lists tasks by outcome: succeeded, failed, and failed with one error code', async () => {
    expect(await ids('status=failed')).toEqual([tasks.failed]);
    expect(await ids('status=succeeded')).toEqual(sorted(tasks.first, tasks.second, tasks.otherModel));
    expect(await ids('code=InvalidParameter')).toEqual([tasks.failed]);
    expect(await ids('code=UpstreamError')).toEqual([]);
    const [failed] = (await call('GET', `/applications/${appId}/tasks?status=failed`)).body.data as Listed[];
    expect(failed).toMatchObject({ status: 'failed', error: { code: 'InvalidParameter' } });
  });

  it('lists tasks of one API key, with the key and mode on each row', async () => {
    expect(await ids(`key_id=${secondKey.id}`)).toEqual([tasks.second]);
    expect(await ids(`key_id=${firstKey.id}`)).toEqual(sorted(tasks.first, tasks.otherModel, tasks.failed));
    const [row] = (await call('GET', `/applications/${appId}/tasks?key_id=${secondKey.id}`)).body.data as Listed[];
    expect(row).toMatchObject({ key_id: secondKey.id, async: true });
  });

  it('lists sync or async tasks', async () => {
    expect(await ids('mode=async')).toEqual([tasks.second]);
    expect(await ids('mode=sync')).toEqual(sorted(tasks.first, tasks.otherModel, tasks.failed));
  });

  it('combines a filter with the day range and pages it by cursor, each task once', async () => {
    const yesterday = utcDaysBefore(utcDay(), 1);
    expect(await ids(`model=text-embedding-v4&to=${yesterday}`)).toEqual([]);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: { body: { data: Listed[]; next: string | null } } = await call(
        'GET',
        `/applications/${appId}/tasks?mode=sync&limit=1${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      );
      expect(page.body.data.length).toBeLessThanOrEqual(1);
      seen.push(...page.body.data.map((task) => task.id));
      cursor = page.body.next;
    } while (cursor);
    expect(seen).toHaveLength(3);
    expect(sorted(...seen)).toEqual(sorted(tasks.first, tasks.otherModel, tasks.failed));
  });

  it.each([
    ['model=text-embedding-v4&mode=sync', 'mode'],
    ['model=bad%20model', 'model'],
    ['status=queued', 'status'],
    ['code=not-a-code', 'code'],
    ['key_id=sk-secret', 'key_id'],
    ['mode=both', 'mode'],
  ])('refuses tasks?%s with 400 InvalidParameter naming %s', async (query, param) => {
    const refused = await call('GET', `/applications/${appId}/tasks?${query}`);
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({ code: 'InvalidParameter', param });
  });

  it("lists the account's tasks across its applications, each with its application, and no one else's", async () => {
    const second = await consoleClient(api.url).call('POST', '/applications', user, { name: 'second app' });
    const response = await embeddings(second.body.credentials.api_key, { model: 'text-embedding-v4', input: 'five' });
    expect(response.status).toBe(200);
    const fifth = response.headers.get('x-task-id');
    const account = () => call('GET', '/tasks?limit=2');
    const listed = await waitFor(
      async () => {
        const pages: { app_id: string; id: string }[] = [];
        let next: string | null = null;
        do {
          const page = await call('GET', `/tasks?limit=2${next ? `&cursor=${encodeURIComponent(next)}` : ''}`);
          expect(page.status).toBe(200);
          pages.push(...page.body.data);
          next = page.body.next;
        } while (next);
        return pages;
      },
      (rows) => rows.length === 5,
      "the account's five tasks",
    );
    expect(new Set(listed.map((row) => row.id)).size).toBe(5);
    expect(listed[0]).toMatchObject({ id: fifth, app_id: second.body.id });
    expect(
      listed
        .filter((row) => row.app_id === appId)
        .map((row) => row.id)
        .sort(),
    ).toEqual(sorted(...Object.values(tasks)));
    expect((await account()).body.data).toHaveLength(2);

    const stranger = await consoleClient(api.url).register('stranger-requests@example.com');
    const theirs = await consoleClient(api.url).call('GET', '/tasks', stranger);
    expect(theirs.status).toBe(200);
    expect(theirs.body.data).toEqual([]);
    expect((await call('GET', '/tasks?cursor=made-up')).body.error).toMatchObject({ param: 'cursor' });
  });

  it('filters the refused calls by key, mode, model, code and status together, per application and account-wide', async () => {
    const refusals = async (path: string) =>
      ((await call('GET', path)).body.data as { key_id: string; async: boolean; model: string }[]).map(
        (row) => `${row.key_id} ${row.async ? 'async' : 'sync'} ${row.model}`,
      );
    const base = `/applications/${appId}/refusals`;
    expect(await refusals(`${base}?key_id=${secondKey.id}`)).toEqual([`${secondKey.id} sync text-embedding-v4`]);
    expect(await refusals(`${base}?mode=async&model=openai-embedding`)).toEqual([
      `${firstKey.id} async openai-embedding`,
    ]);
    expect(await refusals(`${base}?code=InvalidParameter&status=400`)).toHaveLength(2);
    expect(await refusals(`${base}?status=429`)).toEqual([]);
    expect(await refusals(`${base}?from=${utcDay()}&model=text-embedding-v4`)).toHaveLength(1);
    expect(await refusals(`/refusals?key_id=${firstKey.id}`)).toEqual([`${firstKey.id} async openai-embedding`]);
    for (const [query, param] of [
      ['status=200', 'status'],
      ['mode=x', 'mode'],
      ['from=2025-02-30', 'from'],
    ]) {
      const refused = await call('GET', `${base}?${query}`);
      expect([refused.status, refused.body.error.param]).toEqual([400, param]);
    }
  });

  // Last: it adds a refusal the tests above do not expect.
  it('exports the filtered requests as CSV: tasks then refusals, RFC 4180 quoting, formula cells defused', async () => {
    const csv = async (path: string) => {
      const answer = await fetch(`${api.url}/console/api${path}`, { headers: { cookie: user.cookie } });
      return { status: answer.status, headers: answer.headers, text: await answer.text() };
    };
    const rows = (text: string) => text.split('\r\n').filter(Boolean);
    const byKey = await csv(`/applications/${appId}/requests/export?key_id=${secondKey.id}`);
    expect(byKey.status).toBe(200);
    expect(byKey.headers.get('content-type')).toMatch(/^text\/csv/);
    expect(byKey.headers.get('content-disposition')).toMatch(
      /^attachment; filename="requests-app_\w+-\d{4}-\d{2}-\d{2}-\d{4}-\d{2}-\d{2}\.csv"$/,
    );
    const [header, task, refused, ...more] = rows(byKey.text);
    expect(header.split(',').slice(0, 8)).toEqual([
      'kind',
      'app_id',
      'time',
      'task_id',
      'request_id',
      'endpoint',
      'model',
      'status',
    ]);
    expect(header.split(',')).toHaveLength(18);
    expect(task).toMatch(
      new RegExp(
        `^task,${appId},[^,]+,${tasks.second},[^,]*,embeddings,text-embedding-v4,succeeded,,,${secondKey.id},async,\\d+,`,
      ),
    );
    expect(refused).toMatch(
      new RegExp(`^refused,${appId},[^,]+,,[^,]*,POST /v1/embeddings,text-embedding-v4,400,InvalidParameter,`),
    );
    expect(more).toEqual([]);
    expect(rows((await csv(`/applications/${appId}/requests/export?status=failed`)).text).slice(1)).toEqual([
      expect.stringMatching(new RegExp(`^task,${appId},[^,]+,${tasks.failed},`)),
    ]);

    // A model a spreadsheet would run as a formula, quoted because of its own quotes and commas.
    const formula = '=HYPERLINK("https://evil.example","open")';
    expect((await embeddings(firstKey.secret, { model: formula, input: 'x' })).status).toBeGreaterThanOrEqual(400);
    const refusedOnly = await waitFor(
      async () => rows((await csv(`/applications/${appId}/requests/export?calls=refused`)).text),
      (lines) => lines.length === 4,
      'the third refusal in the export',
    );
    expect(refusedOnly[1]).toContain(`,"'=HYPERLINK(""https://evil.example"",""open"")",`);
    expect(refusedOnly.slice(1).every((line) => line.startsWith('refused,'))).toBe(true);

    // Across the account, the same filter; a stranger's application is a 404, a bad `calls` a 400.
    const account = rows((await csv('/requests/export?mode=async')).text);
    expect(account.slice(1).map((line) => line.split(',')[0])).toEqual(['task', 'refused']);
    expect((await csv(`/applications/${appId}/requests/export?calls=some`)).status).toBe(400);
    const stranger = await consoleClient(api.url).register('csv-stranger@example.com');
    const foreign = await fetch(`${api.url}/console/api/applications/${appId}/requests/export`, {
      headers: { cookie: stranger.cookie },
    });
    expect(foreign.status).toBe(404);
  });
});
