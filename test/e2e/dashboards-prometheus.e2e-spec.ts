import { OperationsListener } from '@gateway/metrics';
import { join } from 'node:path';
import { DashScopeFake, startDashScopeFake } from '../fakes/dashscope-fake';
import { OpenAiFake } from '../fakes/openai-fake';
import {
  emptyPanelReason,
  labelValuesVariables,
  PanelTarget,
  panelTargets,
  readDashboards,
} from '../helpers/dashboards';
import {
  createApplication,
  metricValue,
  postJson,
  ROOT,
  RunningApi,
  RunningWorker,
  startApi,
  startWorker,
  testEnv,
  waitFor,
} from '../helpers/gateway';
import { dataUri, editBody, noisyPng } from '../helpers/images';
import { PrometheusServer } from '../helpers/prometheus';
import { WebhookReceiver } from '../helpers/webhook-receiver';

const DASHBOARDS = readDashboards(join(ROOT, 'grafana'));
const TARGETS = DASHBOARDS.flatMap(({ dashboard }) => panelTargets(dashboard));
const VARIABLES = DASHBOARDS.flatMap(({ dashboard }) => labelValuesVariables(dashboard));

/**
 * Every panel of every dashboard in grafana/, evaluated by Debian's Prometheus against a live api and worker after a
 * short mixed load: each target must answer a series with a value (and the labels its legend shows), so a misspelt
 * metric, label or rule name fails here by panel name. prometheus/rules/*.yml are loaded, for the SLO panels.
 */
describe('Grafana dashboards against Prometheus', () => {
  const primary = new OpenAiFake({ delayMs: 0 });
  // The first route of fallback-embedding: always failing, so upstream errors are counted and the call falls back.
  const broken = new OpenAiFake({ delayMs: 0 });
  const secondary = new OpenAiFake({ delayMs: 0 });
  // The receiver plays a host the operator allowed (OUTBOUND_ALLOW_CIDRS); 127.0.0.1 stays refused.
  const receiver = new WebhookReceiver('127.0.0.2');
  const prometheus = new PrometheusServer();
  let dashscope: DashScopeFake;
  let api: RunningApi;
  let worker: RunningWorker;
  let workerMetricsUrl: string;
  let busy: { appId: string; apiKey: string };
  let quiet: { appId: string; apiKey: string };
  let limited: { appId: string; apiKey: string };

  beforeAll(async () => {
    [dashscope] = await Promise.all([
      startDashScopeFake(),
      primary.start(),
      broken.start(),
      secondary.start(),
      receiver.start(),
    ]);
    const env = testEnv({
      UPSTREAM_PRIMARY_BASE_URL: primary.baseUrl,
      UPSTREAM_BROKEN_BASE_URL: broken.baseUrl,
      UPSTREAM_SECONDARY_BASE_URL: secondary.baseUrl,
      UPSTREAM_DASHSCOPE_BASE_URL: dashscope.url,
      UPSTREAM_DASHSCOPE_API_KEY: 'k',
      OUTBOUND_ALLOW_CIDRS: '127.0.0.2/32',
    });
    [api, worker] = await Promise.all([startApi(env), startWorker(env)]);
    workerMetricsUrl = await worker.app.get(OperationsListener).listen(0, '127.0.0.1');
    [busy, quiet, limited] = await Promise.all([
      createApplication(api, 'busy', { callbackUrl: receiver.url }),
      createApplication(api, 'quiet'),
      createApplication(api, 'limited', { requestsPerMinute: 1 }),
    ]);
    await prometheus.start(
      [
        { job: 'api', url: api.metricsUrl },
        { job: 'worker', url: workerMetricsUrl },
      ],
      join(ROOT, 'prometheus', 'rules', '*.yml'),
    );
    // Two rounds with a scrape between them: every counter is seen before and after it grew, so rates are non-zero
    // and quantiles have observations in their window.
    await prometheus.caughtUp();
    for (let round = 0; round < 2; round++) {
      await mixedLoad(round);
      await prometheus.caughtUp();
    }
  }, 180_000);

  afterAll(async () => {
    await prometheus.stop();
    await Promise.all([api?.close(), worker?.close()]);
    await Promise.all([primary.stop(), broken.stop(), secondary.stop(), dashscope?.close(), receiver.stop()]);
  });

  /** One round of traffic that gives every panel data; resolves once the worker has counted all of it. */
  async function mixedLoad(round: number): Promise<void> {
    broken.failNext({ times: 1_000, status: 500 });
    const deliveredBefore = await workerCount('gateway_webhook_deliveries_total', { outcome: 'delivered' });
    const png = dataUri(await noisyPng(64, 64, round + 1));
    const v1 = (path: string, body: unknown, apiKey = busy.apiKey) => postJson(`${api.url}/v1/${path}`, body, apiKey);
    const statuses = await Promise.all([
      v1('embeddings', { model: 'text-embedding-v4', input: `round ${round}`, dimensions: 64 }),
      v1('embeddings', { model: 'fallback-embedding', input: 'falls back' }),
      v1('embeddings', { model: 'text-embedding-v4', input: 'a quiet one', dimensions: 64 }, quiet.apiKey),
      v1('chat/completions', { model: 'x-chat', messages: [{ role: 'user', content: 'hi' }] }),
      streamedChat(),
      v1('images/edits', editBody('x-image-edit-plus-2025-10-30', [png], '把背景换成海边', { n: 1 })),
      v1('embeddings', { model: 'no-such-model', input: 'x' }),
    ]).then((answers) => answers.map((a) => (typeof a === 'number' ? a : a.status)));
    expect(statuses).toEqual([200, 200, 200, 200, 200, 200, 400]);
    // Over the limit of one request a minute: of three at once, at least one is refused with 429, even when a minute
    // turns between two of them.
    const limitedStatuses = [];
    for (let i = 0; i < 3; i++)
      limitedStatuses.push((await v1('embeddings', { model: 'text-embedding-v4', input: 'x' }, limited.apiKey)).status);
    expect(limitedStatuses).toContain(429);
    // Every attempt on the primary fails: the call ends 502, a 5xx for the error-ratio and SLO panels.
    primary.failNext({ times: 10, status: 500 });
    expect(
      (await v1('embeddings', { model: 'openai-embedding', input: 'fails upstream' })).status,
    ).toBeGreaterThanOrEqual(500);
    primary.reset();
    // Each of busy's tasks (6 a round, the failed one too) sends its webhook.
    await waitFor(
      () => workerCount('gateway_webhook_deliveries_total', { outcome: 'delivered' }),
      (delivered) => delivered >= deliveredBefore + 6,
      'the webhook deliveries',
      30_000,
    );
  }

  async function streamedChat(): Promise<number> {
    const response = await fetch(`${api.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${busy.apiKey}` },
      body: JSON.stringify({ model: 'x-chat', messages: [{ role: 'user', content: 'stream me' }], stream: true }),
    });
    const text = await response.text();
    expect(text).toContain('data: [DONE]');
    return response.status;
  }

  async function workerCount(name: string, labels: Record<string, string>): Promise<number> {
    const exposition = await (await fetch(`${workerMetricsUrl}/metrics`)).text();
    return metricValue(exposition, name, labels) ?? 0;
  }

  it('finds the dashboards and their panels', () => {
    expect(DASHBOARDS.map((d) => d.file)).toContain(join('dashboards', 'gateway-overview.json'));
    for (const { dashboard } of DASHBOARDS) expect(panelTargets(dashboard)).not.toEqual([]);
    expect(TARGETS.length).toBeGreaterThanOrEqual(30);
  });

  it('loads every recording and alerting rule in prometheus/rules without an evaluation error', async () => {
    const { groups } = await prometheus.rules();
    const failing = groups.flatMap((g) =>
      g.rules.filter((r) => r.health !== 'ok').map((r) => `${r.name}: ${r.lastError}`),
    );
    expect(failing).toEqual([]);
  });

  // A variable that misses a value (a service whose series lack its metric) cannot select that value's panels.
  it.each(VARIABLES.map((v) => [v.name, v] as const))('variable %s offers every value', async (_name, variable) => {
    const offered = await prometheus.labelValues(variable.label, variable.metric);
    const all = await prometheus.labelValues(variable.label, `{${variable.label}!="", __name__=~"gateway_.+"}`);
    expect(all).not.toEqual([]);
    expect(offered).toEqual(all);
  });

  it.each(TARGETS.map((t) => [t.name, t] as const))('%s has data', async (_name, target: PanelTarget) => {
    expect(emptyPanelReason(target, await prometheus.query(target.expr))).toBeUndefined();
  });

  it('counts requests, billed amounts and limit rejections per application, labelled by app id', async () => {
    const appsOf = async (expr: string) => (await prometheus.query(expr)).map((s) => s.metric.app).sort();
    // Each application had calls billed, the limited one's first call of each minute too.
    const everyApp = [busy.appId, quiet.appId, limited.appId].sort();
    expect(await appsOf('sum by (app) (gateway_app_requests_total)')).toEqual(everyApp);
    expect(await appsOf('sum by (app) (gateway_app_billed_amount_total > 0)')).toEqual(everyApp);
    expect(await appsOf('sum by (app) (gateway_app_limit_rejections_total{code="RateLimited"})')).toEqual([
      limited.appId,
    ]);
  });

  it('fails a target whose metric or label is misspelt', async () => {
    const target = TARGETS.find((t) => t.expr.includes('gateway_http_requests_total{service=~'))!;
    const misspelt = [
      target.expr.replace('gateway_http_requests_total', 'gateway_http_request_total'),
      target.expr.replace('service=~', 'servce=~'),
    ];
    for (const expr of misspelt) {
      expect(expr).not.toBe(target.expr);
      expect(emptyPanelReason({ ...target, expr }, await prometheus.query(expr))).toMatch(/^no series for /);
    }
    const badLegend = { ...target, legendLabels: ['rout'] };
    expect(emptyPanelReason(badLegend, await prometheus.query(target.expr))).toMatch(/without the legend's rout/);
  });
});
