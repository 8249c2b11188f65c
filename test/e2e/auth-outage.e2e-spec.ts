import { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { apiKeyChecksumKeys, generateApiKey } from '@gateway/tenancy';
import { createApplication, getJson, RunningApi, startApi, testEnv } from '../helpers/gateway';

// scripts/services.js is the same helper `npm test` uses to start the shared servers.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const services = require('../../scripts/services.js');

describe('authentication during a MongoDB outage', () => {
  let ferret: ChildProcess;
  let dir: string;
  let api: RunningApi;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'gw-outage-'));
    const port = await services.freePort();
    // A FerretDB of this suite's own in front of the shared PostgreSQL, so that taking it down leaves the others up.
    ferret = await services.startFerretDb({
      port,
      postgresUrl: process.env.TEST_POSTGRES_URL,
      stateDir: join(dir, 'db'),
    });
    api = await startApi(testEnv({ MONGODB_URI: `mongodb://127.0.0.1:${port}/outage`, AUTH_CACHE_TTL_MS: 200 }));
  });

  afterAll(async () => {
    await api?.close().catch(() => undefined);
    await services.stop(ferret);
    rmSync(dir, { recursive: true, force: true });
  });

  it('keeps serving keys it has seen, and answers unknown keys 503 rather than 401', async () => {
    const { apiKey } = await createApplication(api, 'outage');
    expect((await getJson(`${api.url}/v1/models`, apiKey)).status).toBe(200);

    await services.stop(ferret, 'SIGKILL');
    await new Promise((r) => setTimeout(r, 400)); // the cached entry is now stale

    for (let i = 0; i < 3; i++) expect((await getJson(`${api.url}/v1/models`, apiKey)).status).toBe(200);
    const unknown = await getJson(`${api.url}/v1/models`, generateApiKey(apiKeyChecksumKeys(api.config)[0]));
    expect(unknown.status).toBe(503);
    expect(unknown.body.error.code).toBe('NotReady');
  });

  it('reports itself not ready, 503 with what is down, while the database is away', async () => {
    const ready = await getJson(`${api.metricsUrl}/health/ready`);
    expect(ready.status).toBe(503);
    expect(ready.body).toMatchObject({ status: 'error', error: { mongodb: { status: 'down' } } });
  });
});
