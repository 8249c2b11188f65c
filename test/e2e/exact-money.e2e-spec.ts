import { formatNanos, nanosToNumber, sumNanos } from '@gateway/common';
import { TaskRecord, TasksRepository, UsageDailyRepository } from '@gateway/db';
import Big from 'big.js';
import { spawnSync } from 'node:child_process';
import { OpenAiFake } from '../fakes/openai-fake';
import { consoleClient } from '../helpers/console';
import { ENTRY_POINTS } from '../../scripts/processes';
import {
  getJson,
  postJson,
  processEnv,
  RunningApi,
  RunningWorker,
  startApi,
  startWorker,
  testEnv,
  waitFor,
} from '../helpers/gateway';

const CALLS = 10_000;
const CONCURRENCY = 50;
/** text-embedding-v4 costs 0.0005 per 1k input tokens in test/fixtures/models.yaml: 500 nanos a token. */
const NANOS_PER_TOKEN = 500;

/** 1 to 4 tokens: the fake counts a text's tokens as its length / 4, rounded up. */
function inputOf(i: number): string {
  return `${i}`.padEnd(4 * (1 + (i % 4)), '.');
}

/** Every task record of the application on `day`, from the database. */
async function taskRecords(api: RunningApi, appId: string, day: string): Promise<TaskRecord[]> {
  const tasks = api.app.get(TasksRepository);
  const records: TaskRecord[] = [];
  for (let cursor: string | undefined; ;) {
    const slice = await tasks.listForApp(appId, { from: day, to: day, limit: 500, cursor });
    records.push(...slice.data);
    if (!slice.next) return records;
    cursor = slice.next;
  }
}

describe('exact money: costs are integer nanos, added up exactly everywhere', () => {
  const upstream = new OpenAiFake();
  const day = new Date().toISOString().slice(0, 10);
  let env: ReturnType<typeof testEnv>;
  let api: RunningApi;
  let worker: RunningWorker;

  beforeAll(async () => {
    await upstream.start();
    env = testEnv({ UPSTREAM_PRIMARY_BASE_URL: upstream.baseUrl, USAGE_FLUSH_MS: 200 });
    [api, worker] = await Promise.all([startApi(env), startWorker(env)]);
  });

  afterAll(async () => {
    await Promise.all([api?.close(), worker?.close()]);
    await upstream.stop();
  });

  it('totals 10,000 calls at 0.0005 per 1k tokens to the nano in the records, the roll-ups, the API, the console and the CLI', async () => {
    const console = consoleClient(api.url);
    const owner = await console.register('exact-money@example.com');
    const created = (await console.call('POST', '/applications', owner, { name: 'exact-money' })).body;
    const appId: string = created.id;

    // Through the api and the worker over HTTP, CONCURRENCY calls at a time.
    const calls: { taskId: string; promptTokens: number }[] = [];
    let next = 0;
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < CALLS) {
          const i = next++;
          const response = await postJson(
            `${api.url}/v1/embeddings`,
            { model: 'text-embedding-v4', input: inputOf(i), dimensions: 64 },
            created.credentials.api_key,
          );
          expect(response.status).toBe(200);
          calls.push({ taskId: response.headers.get('x-task-id')!, promptTokens: response.body.usage.prompt_tokens });
        }
      }),
    );
    const tokens = calls.reduce((sum, call) => sum + call.promptTokens, 0);
    expect(tokens).toBe(25_000);
    const expected = BigInt(tokens * NANOS_PER_TOKEN);
    expect(expected).toBe(12_500_000n);
    const exact = formatNanos(expected);
    expect(exact).toBe('0.0125');

    // The task records, summed as integers.
    const records = await waitFor(
      () => taskRecords(api, appId, day),
      (found) => found.length === CALLS,
      'every task record',
      60_000,
    );
    expect(records.every((record) => record.costNanos === record.usage!.prompt_tokens * NANOS_PER_TOKEN)).toBe(true);
    expect(sumNanos(records.map((record) => record.costNanos))).toBe(expected);
    // What adding the same costs as floats gives: not the total, so floats anywhere on the way would fail this test.
    const naive = records.reduce((sum, record) => sum + nanosToNumber(record.costNanos), 0);
    expect(String(naive)).not.toBe(exact);

    // The roll-up, once the worker has folded every call into it.
    const [rollup] = await waitFor(
      () => api.app.get(UsageDailyRepository).listForApp(appId, day, day),
      (rows) => rows.length === 1 && rows[0].calls === CALLS,
      'the roll-up of every call',
      30_000,
    );
    expect(rollup).toMatchObject({ model: 'text-embedding-v4', errors: 0, promptTokens: tokens });
    expect(BigInt(rollup.costNanos)).toBe(expected);
    expect(formatNanos(rollup.costNanos)).toBe(exact);

    // GET /v1/tasks/{id}: each task's cost, a JSON number that is its exact decimal.
    for (const { taskId, promptTokens } of calls.filter((_, i) => i % 50 === 0)) {
      const task = await getJson(`${api.url}/v1/tasks/${taskId}`, created.credentials.api_key);
      const nanos = promptTokens * NANOS_PER_TOKEN;
      expect(task.body.cost).toBe(nanosToNumber(nanos));
      expect(new Big(String(task.body.cost)).eq(formatNanos(nanos))).toBe(true);
    }

    // The console API's usage of the application: totals added up in integers, sent as strings.
    const usage = await console.call('GET', `/applications/${appId}/usage?from=${day}&to=${day}`, owner);
    expect(usage.status).toBe(200);
    const totals = { calls: CALLS, errors: 0, prompt_tokens: tokens, cost_nanos: expected.toString(), cost: exact };
    expect(usage.body).toMatchObject({
      currency: 'CNY',
      data: [{ day, model: 'text-embedding-v4', ...totals }],
      by_day: [{ day, ...totals }],
      by_model: [{ model: 'text-embedding-v4', ...totals }],
      total: totals,
    });

    // The operator CLI: integer nanos in --json, the exact decimal and its total in the table.
    const gw = (...args: string[]) =>
      spawnSync(process.execPath, [ENTRY_POINTS.cli, 'usage', '--app', appId, '--from', day, '--to', day, ...args], {
        env: processEnv(env),
        encoding: 'utf8',
      });
    const json = gw('--json');
    expect({ status: json.status, stderr: json.stderr }).toEqual({ status: 0, stderr: '' });
    const rows = JSON.parse(json.stdout) as { costNanos: number; cost: string }[];
    expect(sumNanos(rows.map((row) => row.costNanos))).toBe(expected);
    expect(rows.map((row) => row.cost)).toEqual([exact]);
    const table = gw();
    expect(table.status).toBe(0);
    const total = table.stdout.split('\n').find((line) => line.startsWith('total'));
    expect(total?.split(/\s+/)).toEqual(['total', String(CALLS), '0', String(tokens), '0', '0', exact]);
  });
});
