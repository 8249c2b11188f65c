import { MoneyBudget, UsersRepository } from '@gateway/db';
import { LimitsService } from '@gateway/tenancy';
import { BudgetWebhookEvent } from '@gateway/webhooks';
import { OpenAiFake } from '../fakes/openai-fake';
import {
  createApplication,
  getJson,
  postJson,
  ROOT,
  RunningApi,
  startApi,
  startWorker,
  testEnv,
  waitFor,
  waitUntil,
} from '../helpers/gateway';
import { consoleClient, createOperator } from '../helpers/console';
import { readmeVerifier, WebhookReceiver } from '../helpers/webhook-receiver';

/** The fake counts ceil(40 / 4) = 10 tokens for this input; the gateway's tokenizer reserves fewer. */
const INPUT = 'x'.repeat(40);
/** text-embedding-v4 costs 0.0005 per 1k input tokens: 10 tokens cost 5,000 nanos. */
const CALL_NANOS = 5_000;

const embed = (api: RunningApi, apiKey: string, headers: Record<string, string> = {}) =>
  Object.keys(headers).length === 0
    ? postJson(`${api.url}/v1/embeddings`, { model: 'text-embedding-v4', input: INPUT, dimensions: 64 }, apiKey)
    : fetch(`${api.url}/v1/embeddings`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${apiKey}`, ...headers },
        body: JSON.stringify({ model: 'text-embedding-v4', input: INPUT, dimensions: 64 }),
      }).then(async (response) => ({
        status: response.status,
        headers: response.headers,
        body: await response.json(),
      }));

const secondsToUtcMidnight = () => {
  const now = new Date();
  return (Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1) - now.getTime()) / 1000;
};

/** docs/contracts.md (budgets): money budgets admitted with the other limits, settled to the real cost, announced. */
describe('budgets', () => {
  const upstream = new OpenAiFake();
  // The receiver plays a host the operator allowed (OUTBOUND_ALLOW_CIDRS).
  const receiver = new WebhookReceiver('127.0.0.2');
  const verifyWebhook = readmeVerifier(ROOT);
  let apiA: RunningApi;
  let apiB: RunningApi;
  let worker: { close(): Promise<void> };
  let limits: LimitsService;

  const spent = async (appId: string, budget: MoneyBudget) =>
    (await limits.budgetSpent({ appId, budget }))[0].spentNanos;

  beforeAll(async () => {
    await Promise.all([upstream.start(), receiver.start()]);
    const env = testEnv({
      UPSTREAM_PRIMARY_BASE_URL: upstream.baseUrl,
      OUTBOUND_ALLOW_CIDRS: '127.0.0.2/32',
      WEBHOOK_RETRY_SCHEDULE: '0,200ms',
    });
    [apiA, apiB, worker] = await Promise.all([startApi(env), startApi(env), startWorker(env)]);
    limits = apiA.app.get(LimitsService);
  });

  afterAll(async () => {
    await Promise.all([apiA?.close(), apiB?.close(), worker?.close()]);
    await Promise.all([upstream.stop(), receiver.stop()]);
  });

  beforeEach(() => {
    upstream.reset();
    upstream.setDelay(0);
    receiver.reset();
  });

  it("takes a user's budget from the operator's ceilings and shows it with the application's", async () => {
    const { call } = consoleClient(apiA.url);
    // An operator (made through the one-time setup link) may set its own ceilings.
    const operator = await createOperator(apiA, 'budget-operator@example.com');
    const operatorId = operator.id;
    const refusedAmount = await call('PATCH', `/admin/users/${operatorId}`, operator, {
      ceilings: { budget_amount: '1e-5' },
    });
    expect(refusedAmount.status).toBe(400);
    expect(refusedAmount.body.error.message).toContain('ceilings.budget_amount must be an amount');
    const set = await call('PATCH', `/admin/users/${operatorId}`, operator, {
      ceilings: { budget_amount: '0.00001', budget_period: 'day' },
    });
    expect(set.status).toBe(200);
    expect(set.body.ceilings.budget).toEqual({ amount: '0.00001', period: 'day' });
    const created = await call('POST', '/applications', operator, { name: 'under-ceiling', budget_amount: '1' });
    expect(created.status).toBe(201);
    const { app_id: appId, api_key: apiKey } = created.body.credentials;
    expect((await embed(apiA, apiKey)).status).toBe(200);
    expect((await embed(apiB, apiKey)).status).toBe(200);
    const refused = await embed(apiA, apiKey);
    expect(refused.body.error.code).toBe('BudgetExceeded');
    expect(refused.body.error.message).toContain('your account');
    const state = await call('GET', `/applications/${appId}/budget`, operator);
    expect(
      state.body.data.map((b: { scope: string; spent: string; amount: string }) => [b.scope, b.spent, b.amount]),
    ).toEqual([
      ['application', '0.00001', '1'],
      ['user', '0.00001', '0.00001'],
    ]);
  });

  it('reserves the worst case at admission, settles to the real cost, and admits exactly what fits across two instances', async () => {
    // The reserve of one call, as the counter holds it while the call is in flight.
    const probeBudget: MoneyBudget = { amountNanos: 1_000_000, period: 'day' };
    const probe = await createApplication(apiA, 'budget-probe', { budget: probeBudget });
    upstream.setDelay(1500);
    const queued = await embed(apiA, probe.apiKey, { 'x-async': 'enable' });
    expect(queued.status).toBe(202);
    const reserved = await spent(probe.appId, probeBudget);
    expect(reserved).toBeGreaterThan(0);
    expect(reserved).not.toBe(CALL_NANOS);
    // Settlement corrects the reserve to the task's real cost.
    await waitUntil(async () => (await spent(probe.appId, probeBudget)) !== reserved, 'the probe settled');
    expect(await spent(probe.appId, probeBudget)).toBe(CALL_NANOS);
    const task = await getJson(`${apiA.url}/v1/tasks/${queued.body.task_id}`, probe.apiKey);
    expect(task.body.cost).toBe(CALL_NANOS / 1e9);

    // Room for three reserves and a half: three of ten calls sent at once through two instances get in.
    const budget: MoneyBudget = { amountNanos: 3 * reserved + Math.floor(reserved / 2), period: 'day' };
    const { appId, apiKey } = await createApplication(apiA, 'budget-exact', { budget });
    upstream.reset();
    upstream.setDelay(3000);
    const responses = await Promise.all(Array.from({ length: 10 }, (_, i) => embed(i % 2 ? apiA : apiB, apiKey)));
    const ok = responses.filter((r) => r.status === 200);
    const refused = responses.filter((r) => r.status === 429);
    expect(ok).toHaveLength(3);
    expect(refused).toHaveLength(7);
    for (const r of refused) {
      expect(r.body.error).toMatchObject({ code: 'BudgetExceeded', type: 'rate_limit_error' });
      expect(r.body.error.message).toContain('daily budget of this application');
      // Seconds to the next 00:00 UTC, the end of the budget's day.
      expect(Math.abs(Number(r.headers.get('retry-after')) - secondsToUtcMidnight())).toBeLessThan(30);
    }
    expect(upstream.calls).toHaveLength(3);
    expect(await spent(appId, budget)).toBe(3 * CALL_NANOS);
  });

  it('announces 80 % and 100 % of a budget once each, signed, and refuses the call after', async () => {
    const budget: MoneyBudget = { amountNanos: 5 * CALL_NANOS, period: 'month' };
    const { appId, apiKey, secretKey } = await createApplication(apiA, 'budget-hooks', {
      budget,
      callbackUrl: receiver.url,
    });
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) statuses.push((await embed(i % 2 ? apiA : apiB, apiKey)).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200]);
    const refused = await embed(apiA, apiKey);
    expect(refused.status).toBe(429);
    expect(refused.body.error.code).toBe('BudgetExceeded');
    expect(refused.body.error.message).toContain('monthly budget of this application');
    const now = new Date();
    const toNextMonth = (Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1) - now.getTime()) / 1000;
    expect(Math.abs(Number(refused.headers.get('retry-after')) - toNextMonth)).toBeLessThan(30);

    const budgetEvents = () =>
      receiver.received
        .filter((hook) => hook.body.type.startsWith('budget.'))
        .map((hook) => ({ ...hook, body: hook.body as unknown as BudgetWebhookEvent }));
    const events = await waitFor(budgetEvents, (found) => found.length >= 2, 'both budget events');
    expect(events.map((hook) => hook.body.type).sort()).toEqual(['budget.exhausted', 'budget.warning']);
    for (const hook of events) {
      expect(verifyWebhook(secretKey, hook.headers, hook.rawBody)).toBe(true);
      const data = hook.body.data;
      expect(data).toMatchObject({ app_id: appId, scope: 'application', period: 'month', budget: 0.000025 });
      expect(data.period_id).toBe(now.toISOString().slice(0, 7));
    }
    const warning = events.find((hook) => hook.body.type === 'budget.warning')!.body;
    const exhausted = events.find((hook) => hook.body.type === 'budget.exhausted')!.body;
    expect(warning.data).toMatchObject({ threshold: 80, spent: 0.00002 });
    expect(exhausted.data).toMatchObject({ threshold: 100, spent: 0.000025 });
  });

  it("refuses a user's applications together at the ceiling an operator set on the user's budget", async () => {
    const users = apiA.app.get(UsersRepository);
    const owner = await users.create({
      _id: 'usr_budget_owner',
      email: 'budget-owner@example.com',
      passwordHash: 'x',
      ceilings: { budget: { amountNanos: 2 * CALL_NANOS, period: 'day' } },
    });
    expect(owner).not.toBeNull();
    const first = await createApplication(apiA, 'owned-1', { ownerId: 'usr_budget_owner' });
    const second = await createApplication(apiA, 'owned-2', { ownerId: 'usr_budget_owner' });
    expect((await embed(apiA, first.apiKey)).status).toBe(200);
    expect((await embed(apiB, second.apiKey)).status).toBe(200);
    const refused = await embed(apiA, first.apiKey);
    expect(refused.status).toBe(429);
    expect(refused.body.error.code).toBe('BudgetExceeded');
    expect(refused.body.error.message).toContain('your account');
    expect((await embed(apiB, second.apiKey)).status).toBe(429);
  });
});
