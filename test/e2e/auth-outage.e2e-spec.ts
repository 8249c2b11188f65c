import { apiKeyChecksumKeys, generateApiKey } from '@gateway/tenancy';
import { createApplication, getJson, RunningApi, startApi, testEnv } from '../helpers/gateway';
import { OwnDatabase } from '../helpers/own-database';

describe('authentication during a MongoDB outage', () => {
  let database: OwnDatabase;
  let api: RunningApi;

  beforeAll(async () => {
    database = await OwnDatabase.start('outage');
    api = await startApi(testEnv({ MONGODB_URI: database.uri('outage'), AUTH_CACHE_TTL_MS: 200 }));
  });

  afterAll(async () => {
    await api?.close().catch(() => undefined);
    await database?.close();
  });

  it('keeps serving keys it has seen, and answers unknown keys 503 rather than 401', async () => {
    const { apiKey } = await createApplication(api, 'outage');
    expect((await getJson(`${api.url}/v1/models`, apiKey)).status).toBe(200);

    await database.kill();
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
