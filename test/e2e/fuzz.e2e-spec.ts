import { OperationsListener } from '@gateway/metrics';
import { join } from 'node:path';
import { DashScopeFake } from '../fakes/dashscope-fake';
import { OpenAiFake } from '../fakes/openai-fake';
import { consoleClient, ConsoleUser, createOperator } from '../helpers/console';
import {
  createApplication,
  getJson,
  ROOT,
  RunningApi,
  RunningWorker,
  startApi,
  startWorker,
  testEnv,
} from '../helpers/gateway';
import { runSchemathesis, SchemathesisRun } from '../helpers/schemathesis';

/**
 * schemathesis against a running api and worker: every operation of GET /v1/openapi.json, with requests made from
 * the document's schemas (valid and invalid), checked for 5xx, statuses and media types the document does not list,
 * bodies off its schemas and missing required headers. Seeded, so a run repeats the same requests.
 */
jest.setTimeout(5 * 60_000);

describe('fuzzing the OpenAPI document with schemathesis', () => {
  const fakes = { primary: new OpenAiFake(), secondary: new OpenAiFake(), broken: new OpenAiFake() };
  const dashscope = new DashScopeFake();
  let api: RunningApi;
  let worker: RunningWorker;
  let workerUrl: string;
  let apiKey: string;
  let operator: ConsoleUser;
  const catalog: Record<string, string[]> = {};
  const runs: SchemathesisRun[] = [];

  beforeAll(async () => {
    await Promise.all([...Object.values(fakes).map((fake) => fake.start()), dashscope.start()]);
    const env = testEnv({
      UPSTREAM_PRIMARY_BASE_URL: fakes.primary.baseUrl,
      UPSTREAM_SECONDARY_BASE_URL: fakes.secondary.baseUrl,
      UPSTREAM_BROKEN_BASE_URL: fakes.broken.baseUrl,
      UPSTREAM_DASHSCOPE_BASE_URL: dashscope.url,
      UPSTREAM_DASHSCOPE_API_KEY: 'sk-upstream-dashscope',
      // A generated image URL is fetched by the worker: bounded, so an unanswered address costs seconds, not minutes.
      IMAGE_FETCH_TIMEOUT_MS: 2_000,
      // The embedded default: the catalog's local models are served, as `npm start` serves them.
      LOCAL_MODELS: 'on',
      LOCAL_MODELS_DIR: join(ROOT, '.data', 'models'),
    });
    [api, worker] = await Promise.all([startApi(env), startWorker(env)]);
    workerUrl = await worker.app.get(OperationsListener).listen(0, '127.0.0.1');
    ({ apiKey } = await createApplication(api, 'fuzzed'));
    const models = (await getJson(`${api.url}/v1/models`, apiKey)).body as {
      data: { id: string; capability: string }[];
    };
    for (const { id, capability } of models.data) (catalog[capability] ??= []).push(id);
    // An operator's session, so the operators' routes are fuzzed past their guard.
    const { cookie, csrf } = await createOperator(api, 'fuzz@example.com');
    operator = { cookie, csrf };
  });

  afterAll(async () => {
    await Promise.all([api?.close(), worker?.close()]);
    await Promise.all([...Object.values(fakes).map((fake) => fake.stop()), dashscope.close()]);
  });

  it('finds no 5xx, no answer off its schema and no undocumented status on any /v1 operation', async () => {
    const run = await runSchemathesis(api.url, {
      include: '^/v1/',
      headers: { Authorization: `Bearer ${apiKey}` },
      catalog,
    });
    runs.push(run);
    expect(run.failures).toEqual([]);
  });

  it('follows the links from a new application to a call with its key and on to the task, finding none', async () => {
    // The API key comes only from the application the scenario creates (the UseTheKey link), so no Authorization
    // here; a member's session, before the operator's run can set ceilings on accounts.
    const member = await consoleClient(api.url).register('linked@example.com');
    const run = await runSchemathesis(api.url, {
      include: '^(/console/api/applications|/v1/embeddings|/v1/tasks/\\{id\\})$',
      headers: { Cookie: member.cookie, 'X-CSRF-Token': member.csrf },
      phases: ['stateful'],
      catalog,
    });
    runs.push(run);
    expect(run.failures).toEqual([]);
    expect(run.links.covered).toBeGreaterThan(0);
  });

  it('finds none on any console operation, as a signed-in operator', async () => {
    const run = await runSchemathesis(api.url, {
      include: '^/console/api/',
      // Signing out ends the session every other console request of the run is made with: it has its own run.
      exclude: '^/console/api/auth/logout$',
      headers: { Cookie: operator.cookie, 'X-CSRF-Token': operator.csrf },
    });
    runs.push(run);
    expect(run.failures).toEqual([]);
  });

  it('finds none signing out, with a session of its own, which the first request ends', async () => {
    const client = consoleClient(api.url);
    const member = await client.register('leaving@example.com');
    const run = await runSchemathesis(api.url, {
      include: '^/console/api/auth/logout$',
      headers: { Cookie: member.cookie, 'X-CSRF-Token': member.csrf },
      // No link leads to or from it, so no stateful phase.
      phases: ['coverage', 'fuzzing'],
    });
    runs.push(run);
    expect(run.failures).toEqual([]);
    // The requests after the first find the session gone: signed out, as documented.
    expect((await client.call('GET', '/auth/me', member)).body).toEqual({ user: null });
  });

  it('leaves the api and the worker up and answering /health/live', async () => {
    expect((await getJson(`${api.url}/health/live`)).status).toBe(200);
    expect((await fetch(`${workerUrl}/health/live`)).status).toBe(200);
    expect(runs.map((run) => run.exitCode)).toEqual([0, 0, 0, 0]);
  });

  it('has tested every operation of the document: /v1, the console and sign-out between them', async () => {
    const document = (await getJson(`${api.url}/v1/openapi.json`)).body as { paths: Record<string, object> };
    const operations = Object.values(document.paths).reduce((sum, verbs) => sum + Object.keys(verbs).length, 0);
    // The key-link run (runs[1]) repeats operations the others test.
    const [v1, , consoleApi, signOut] = runs.map((run) => run.operations.tested);
    expect(v1 + consoleApi + signOut).toBe(operations);
  });
});
