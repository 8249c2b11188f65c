import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { sign, signingString } from '@gateway/tenancy';
import { OpenAiFake } from '../fakes/openai-fake';
import { createApplication, ROOT, RunningApi, startApi, startWorker, testEnv } from '../helpers/gateway';
import { evaluateSnippet } from '../helpers/readme';
import { checkedFetch } from '../helpers/contract';

describe('HMAC request signing with App ID and Secret Key', () => {
  const upstream = new OpenAiFake();
  let api: RunningApi;
  let worker: { close(): Promise<void> };
  let credentials: { appId: string; secretKey: string; apiKey: string };

  beforeAll(async () => {
    await upstream.start();
    const env = testEnv({ UPSTREAM_PRIMARY_BASE_URL: upstream.baseUrl });
    [api, worker] = await Promise.all([startApi(env), startWorker(env)]);
    credentials = await createApplication(api, 'signed');
  });

  afterAll(async () => {
    await Promise.all([api?.close(), worker?.close()]);
    await upstream.stop();
  });

  /** A signed request as a client would send it, with parts overridable to build bad ones. */
  async function signedRequest(
    options: {
      path?: string;
      body?: string;
      sentBody?: string;
      timestamp?: number;
      nonce?: string;
      appId?: string;
      secret?: string;
    } = {},
  ) {
    const path = options.path ?? '/v1/embeddings';
    const body = options.body ?? JSON.stringify({ model: 'text-embedding-v4', input: 'signed hello', dimensions: 64 });
    const timestamp = String(options.timestamp ?? Math.floor(Date.now() / 1000));
    const nonce = options.nonce ?? randomUUID();
    const method = path === '/v1/models' ? 'GET' : 'POST';
    const signature = sign(
      options.secret ?? credentials.secretKey,
      signingString(method, path, timestamp, nonce, method === 'GET' ? '' : body),
    );
    const response = await checkedFetch(`${api.url}${path}`, {
      method,
      headers: {
        'content-type': 'application/json',
        'x-app-id': options.appId ?? credentials.appId,
        'x-timestamp': timestamp,
        'x-nonce': nonce,
        'x-signature': signature,
      },
      body: method === 'GET' ? undefined : (options.sentBody ?? body),
    });
    return { status: response.status, body: await response.json() };
  }

  it('accepts a valid signature on a POST and on a GET', async () => {
    const post = await signedRequest();
    expect(post.status).toBe(200);
    expect(post.body.data[0].embedding).toHaveLength(64);
    expect((await signedRequest({ path: '/v1/models' })).status).toBe(200);
  });

  it("accepts a request signed by the README's client snippet", async () => {
    const snippet = readFileSync(join(ROOT, 'README.md'), 'utf8').split('```js\n')[1].split('```')[0];
    const signedHeaders = evaluateSnippet<
      (appId: string, secretKey: string, method: string, path: string, body?: string) => Record<string, string>
    >(snippet, 'signedHeaders');
    const body = JSON.stringify({ model: 'text-embedding-v4', input: 'from the readme', dimensions: 64 });
    const response = await checkedFetch(`${api.url}/v1/embeddings`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...signedHeaders(credentials.appId, credentials.secretKey, 'POST', '/v1/embeddings', body),
      },
      body,
    });
    expect(response.status).toBe(200);
  });

  it('rejects an altered body with 401 InvalidSignature', async () => {
    const altered = await signedRequest({
      sentBody: JSON.stringify({ model: 'text-embedding-v4', input: 'tampered', dimensions: 64 }),
    });
    expect(altered.status).toBe(401);
    expect(altered.body.error.code).toBe('InvalidSignature');
  });

  it('rejects a stale or future timestamp with 401 ExpiredTimestamp', async () => {
    const now = Math.floor(Date.now() / 1000);
    expect((await signedRequest({ timestamp: now - 320 })).body.error.code).toBe('ExpiredTimestamp');
    expect((await signedRequest({ timestamp: now + 320 })).body.error.code).toBe('ExpiredTimestamp');
    expect((await signedRequest({ timestamp: now - 250 })).status).toBe(200);
  });

  it('accepts a nonce once and rejects its reuse with 401 InvalidSignature', async () => {
    const nonce = randomUUID();
    expect((await signedRequest({ nonce })).status).toBe(200);
    const replay = await signedRequest({ nonce });
    expect(replay.status).toBe(401);
    expect(replay.body.error).toMatchObject({ code: 'InvalidSignature' });
    expect(replay.body.error.message).toContain('already used');
  });

  it('rejects a wrong secret, an unknown App ID and missing headers', async () => {
    expect((await signedRequest({ secret: 'ss-not-the-secret' })).body.error.code).toBe('InvalidSignature');
    expect((await signedRequest({ appId: 'app_0000000000000000000000' })).body.error.code).toBe('InvalidSignature');
    const unsigned = await checkedFetch(`${api.url}/v1/models`, { headers: { 'x-signature': 'abc' } });
    expect(unsigned.status).toBe(401);
    expect((await unsigned.json()).error.code).toBe('MissingAuthorization');
  });

  it('does not spend a nonce on a request whose signature is wrong', async () => {
    const nonce = randomUUID();
    expect((await signedRequest({ nonce, secret: 'ss-wrong' })).status).toBe(401);
    expect((await signedRequest({ nonce })).status).toBe(200);
  });
});
