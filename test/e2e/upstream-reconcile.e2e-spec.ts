import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import { formatNanos, utcDay } from '@gateway/common';
import { TasksRepository } from '@gateway/db';
import type { UpstreamDrift, UpstreamReconciliation } from '@gateway/ledger';
import { MetricsService } from '@gateway/metrics';
import { DashScopeFake, startDashScopeFake } from '../fakes/dashscope-fake';
import { OpenAiFake } from '../fakes/openai-fake';
import { ENTRY_POINTS } from '../../scripts/processes';
import { dataUri, editBody, noisyPng } from '../helpers/images';
import {
  createApplication,
  metricValue,
  postJson,
  processEnv,
  ROOT,
  RunningApi,
  RunningWorker,
  startApi,
  startWorker,
  testEnv,
  waitFor,
} from '../helpers/gateway';

const CHAT = { model: 'x-chat', route: 'primary:gpt-test' };
const EMBEDDINGS = { model: 'text-embedding-v4', route: 'primary:text-embedding-v4' };
const IMAGES = { model: 'x-image-edit-plus-2025-10-30', route: 'dashscope:qwen-image-edit-plus-2025-10-30' };
/** The image route's own price here, above the model's 0.2, so a spent call shows which of the two it cost. */
const IMAGE_ROUTE_PRICE = 0.25;

/** The suite's catalog with IMAGE_ROUTE_PRICE on the image model's DashScope route. */
function catalogWithRoutePrice(): string {
  const catalog = parse(readFileSync(join(ROOT, 'test', 'fixtures', 'models.yaml'), 'utf8')) as {
    models: { id: string; routes: Record<string, unknown>[] }[];
  };
  catalog.models.find((model) => model.id === IMAGES.model)!.routes[0].price = { per_image: IMAGE_ROUTE_PRICE };
  const file = join(mkdtempSync(join(tmpdir(), 'reconcile-')), 'models.yaml');
  writeFileSync(file, stringify(catalog));
  return file;
}
/** Served by `secondary` alone (its `broken` route has no upstream here): the over-reporting upstream. */
const OVER = { model: 'fallback-embedding', route: 'secondary:embed-a' };
/** fallback-embedding's catalog price, 0.0005 per 1k input tokens, in nanos per token. */
const CATALOG_NANOS_PER_TOKEN = 500;

/**
 * `gw usage:reconcile --upstream` (docs/operations.md, "Upstream reconciliation"): what the gateway computed against
 * what the upstreams reported, per model and route, from the task records; and the worker's counter pair.
 */
describe('upstream reconciliation (usage:reconcile --upstream)', () => {
  const primary = new OpenAiFake({ delayMs: 0 });
  // Reports three times the tokens it counted, and states a cost at three times the catalog's price.
  const secondary = new OpenAiFake({ delayMs: 0, overReport: 3, costPer1kTokens: 0.0015 });
  let dashscope: DashScopeFake;
  let env: ReturnType<typeof testEnv>;
  let api: RunningApi;
  let worker: RunningWorker;
  let apiKey: string;
  let appId: string;
  let tasks: TasksRepository;
  let image: string;

  const gw = (...args: string[]) =>
    spawnSync(process.execPath, [ENTRY_POINTS.cli, ...args], { env: processEnv(env), encoding: 'utf8' });
  const reconcile = (): UpstreamReconciliation => {
    const run = gw('usage:reconcile', '--upstream', '--day', utcDay(), '--json');
    expect(run.stderr).toBe('');
    return JSON.parse(run.stdout) as UpstreamReconciliation;
  };
  const rowOf = (result: UpstreamReconciliation, { model, route }: { model: string; route: string }) =>
    result.routes.find((row) => row.model === model && row.route === route);
  const counted = async (kind: string, { model, route }: { model: string; route: string }) => {
    const exposition = await worker.app.get(MetricsService).registry.metrics();
    return {
      computed: metricValue(exposition, 'gateway_upstream_computed_total', { model, route, kind }),
      reported: metricValue(exposition, 'gateway_upstream_reported_total', { model, route, kind }),
    };
  };
  const spentCount = async ({ model, route }: { model: string; route: string }) =>
    metricValue(await worker.app.get(MetricsService).registry.metrics(), 'gateway_upstream_spent_total', {
      model,
      route,
    }) ?? 0;
  /** Waits for the task's record, so the CLI finds it. */
  // Listed in its application's feed, which the reconciliation reads: the record itself is stored a moment before.
  const recorded = async (response: { headers: Headers }) => {
    const taskId = response.headers.get('x-task-id')!;
    await waitFor(
      () => tasks.listForApp(appId, { from: utcDay(), to: utcDay(), limit: 200 }),
      (listed) => listed.data.some((task) => task._id === taskId),
      "the task in its application's listing",
    );
    return tasks.findForApp(taskId, appId);
  };

  beforeAll(async () => {
    [dashscope] = await Promise.all([startDashScopeFake({ delayMs: 0 }), primary.start(), secondary.start()]);
    env = testEnv({
      MODELS_CONFIG: catalogWithRoutePrice(),
      UPSTREAM_PRIMARY_BASE_URL: primary.baseUrl,
      UPSTREAM_SECONDARY_BASE_URL: secondary.baseUrl,
      UPSTREAM_DASHSCOPE_BASE_URL: dashscope.url,
      UPSTREAM_DASHSCOPE_API_KEY: 'sk-upstream-dashscope',
    });
    [api, worker] = await Promise.all([startApi(env), startWorker(env)]);
    ({ apiKey, appId } = await createApplication(api));
    tasks = api.app.get(TasksRepository);
    image = dataUri(await noisyPng(300, 200));
  });

  afterAll(async () => {
    await Promise.all([api?.close(), worker?.close()]);
    await Promise.all([dashscope?.close(), primary.stop(), secondary.stop()]);
  });

  it('shows no drift after chat, embeddings in parts and image edits against upstreams that report truly', async () => {
    const chat = await postJson(
      `${api.url}/v1/chat/completions`,
      { model: CHAT.model, messages: [{ role: 'user', content: 'how far is the moon from the sea?' }] },
      apiKey,
    );
    // Twelve inputs: two calls of ten and two, each reporting its own usage.
    const input = Array.from({ length: 12 }, (_, i) => `sentence number ${i} about the tides`);
    const embeddings = await postJson(`${api.url}/v1/embeddings`, { model: EMBEDDINGS.model, input }, apiKey);
    const edit = await postJson(
      `${api.url}/v1/images/edits`,
      editBody(IMAGES.model, [image], '把背景换成海边', { n: 2 }),
      apiKey,
    );
    expect([chat.status, embeddings.status, edit.status]).toEqual([200, 200, 200]);
    await Promise.all([chat, embeddings, edit].map(recorded));
    expect(primary.calls.filter((call) => call.path === '/v1/embeddings')).toHaveLength(2);

    const result = reconcile();
    expect(result.tasks).toBe(3);
    const billedChat = chat.body.usage as { prompt_tokens: number; completion_tokens: number };
    expect(rowOf(result, CHAT)).toMatchObject({
      tasks: 1,
      computed: { promptTokens: billedChat.prompt_tokens, completionTokens: billedChat.completion_tokens },
      reported: { promptTokens: billedChat.prompt_tokens, completionTokens: billedChat.completion_tokens },
      spentNotDelivered: { calls: 0, costNanos: 0 },
    });
    expect(rowOf(result, EMBEDDINGS)).toMatchObject({
      computed: { promptTokens: embeddings.body.usage.prompt_tokens },
      reported: { promptTokens: embeddings.body.usage.prompt_tokens },
    });
    expect(rowOf(result, IMAGES)).toMatchObject({
      computed: { images: 2, costNanos: 2 * IMAGE_ROUTE_PRICE * 1e9 },
      reported: { images: 2 },
    });
    // OpenAI and DashScope state no cost, so there is none to compare.
    for (const row of result.routes) expect(row.reported.costNanos).toBeUndefined();

    for (const [kind, target] of [
      ['tokens', CHAT],
      ['tokens', EMBEDDINGS],
      ['images', IMAGES],
    ] as const) {
      const pair = await counted(kind, target);
      expect(pair.computed).toBeGreaterThan(0);
      expect(pair.reported).toBe(pair.computed);
    }
    expect((await counted('cost', CHAT)).reported).toBeUndefined();
  });

  it('shows the images an over-reporting upstream bills above what it delivered', async () => {
    const before = rowOf(reconcile(), IMAGES)!;
    dashscope.options.overReport = 2;
    try {
      const edit = await postJson(
        `${api.url}/v1/images/edits`,
        editBody(IMAGES.model, [image], '把背景换成雪山', { n: 3 }),
        apiKey,
      );
      expect(edit.status).toBe(200);
      await recorded(edit);
    } finally {
      dashscope.options.overReport = undefined;
    }
    const after = rowOf(reconcile(), IMAGES)!;
    expect(after.computed.images - before.computed.images).toBe(3);
    expect(after.reported.images! - before.reported.images!).toBe(6);
    const pair = await counted('images', IMAGES);
    expect(pair.reported! - pair.computed!).toBe(3);
  });

  it('bills tokens by an over-counting upstream and shows its stated cost against the catalog price', async () => {
    // 400 characters: the fake counts 100 tokens and reports 300.
    const embeddings = await postJson(
      `${api.url}/v1/embeddings`,
      { model: OVER.model, input: 'tide '.repeat(80) },
      apiKey,
    );
    expect(embeddings.status).toBe(200);
    await recorded(embeddings);
    const billed = embeddings.body.usage.prompt_tokens as number;
    expect(billed).toBe(300);

    const row = rowOf(reconcile(), OVER)!;
    // The gateway bills by the upstream's count, so the over-count is in both token figures...
    expect(row.computed.promptTokens).toBe(billed);
    expect(row.reported.promptTokens).toBe(billed);
    // ...and shows as cost: 300 tokens at the catalog's price against the upstream's stated cost, three times it.
    expect(row.computed.costNanos).toBe(billed * CATALOG_NANOS_PER_TOKEN);
    expect(row.reported.costNanos).toBe(billed * 3 * CATALOG_NANOS_PER_TOKEN);
    const cost = await counted('cost', OVER);
    expect(cost.computed).toBeCloseTo((billed * CATALOG_NANOS_PER_TOKEN) / 1e9, 12);
    expect(cost.reported).toBeCloseTo((billed * 3 * CATALOG_NANOS_PER_TOKEN) / 1e9, 12);

    const printed = gw('usage:reconcile', '--upstream', '--day', utcDay());
    expect(printed.status).toBe(0);
    expect(printed.stdout).toContain(`${OVER.model} ${OVER.route} (1 task)`);
    expect(printed.stdout).toContain(
      `${formatNanos(billed * CATALOG_NANOS_PER_TOKEN)} → ${formatNanos(billed * 3 * CATALOG_NANOS_PER_TOKEN)}`,
    );
  });

  it("counts an image the upstream generated but never handed over as spent, not delivered, at its route's price", async () => {
    const before: UpstreamDrift = rowOf(reconcile(), IMAGES)!;
    const spentBefore = await spentCount(IMAGES);
    // Every download of the result fails: the generation is billed upstream, the caller gets nothing.
    dashscope.failDownloads({ status: 500, times: 10 });
    const edit = await postJson(`${api.url}/v1/images/edits`, editBody(IMAGES.model, [image], '加一只猫'), apiKey);
    expect(edit.status).toBe(500);
    const record = await recorded(edit);
    expect(record?.upstream?.map((attempt) => attempt.outcome)).toEqual(['spent']);
    dashscope.reset();

    const after = rowOf(reconcile(), IMAGES)!;
    expect(after.spentNotDelivered.calls - before.spentNotDelivered.calls).toBe(1);
    expect(after.spentNotDelivered.costNanos - before.spentNotDelivered.costNanos).toBe(IMAGE_ROUTE_PRICE * 1e9);
    expect(after.computed.images).toBe(before.computed.images);
    expect(after.reported.images).toBe(before.reported.images);
    expect((await spentCount(IMAGES)) - spentBefore).toBe(1);
  });

  it('keeps the roll-up reconciliation as it was without --upstream', () => {
    const run = gw('usage:reconcile', '--day', utcDay(), '--dry-run', '--json');
    expect(run.status).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ day: utcDay(), differences: [] });
    expect(gw('usage:reconcile', '--upstream', '--dry-run', '--day', utcDay()).stderr).toContain('changes nothing');
  });
});
