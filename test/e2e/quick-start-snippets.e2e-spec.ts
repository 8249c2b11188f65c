import { ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { signedRequestSnippet, webhookSnippet } from '../../apps/console/src/components/quick-start-snippets';
import { OpenAiFake } from '../fakes/openai-fake';
import { createApplication, postJson, RunningApi, startApi, startWorker, testEnv, waitUntil } from '../helpers/gateway';

/**
 * The console's Quick start snippets for a signed request and a webhook receiver, written to files and run with node
 * as a developer would paste them, against the real api and a real delivery.
 */
describe('Quick start snippets, run with node', () => {
  const upstream = new OpenAiFake();
  const dir = mkdtempSync(join(tmpdir(), 'gw-snippets-'));
  let api: RunningApi;
  let worker: { close(): Promise<void> };
  let receiver: ChildProcess | undefined;
  let port: number;
  let app: { appId: string; apiKey: string; secretKey: string };

  beforeAll(async () => {
    await upstream.start();
    port = await freePort();
    const env = testEnv({
      UPSTREAM_PRIMARY_BASE_URL: upstream.baseUrl,
      OUTBOUND_ALLOW_CIDRS: '127.0.0.2/32',
      AUTH_CACHE_TTL_MS: 100,
    });
    [api, worker] = await Promise.all([startApi(env), startWorker(env)]);
    app = await createApplication(api, 'snippets', { callbackUrl: `http://127.0.0.2:${port}/hooks` });
  });

  afterAll(async () => {
    receiver?.kill();
    await Promise.all([api?.close(), worker?.close()]);
    await upstream.stop();
  });

  it('signs a request that the api accepts, and fails with another Secret Key', async () => {
    const file = join(dir, 'sign.mjs');
    writeFileSync(file, signedRequestSnippet(`${api.url}/v1`, app.appId));
    const run = (secret: string) =>
      promisify(execFile)(process.execPath, [file], { env: { ...process.env, SECRET_KEY: secret } });
    const signed = await run(app.secretKey);
    expect(signed.stdout.trim()).toMatch(/^200 \d+$/);
    const forged = await run('ss-not-the-secret-key');
    expect(forged.stdout).toMatch(/^401 .*InvalidSignature/s);
  });

  it('verifies a real webhook delivery and refuses one signed with another Secret Key', async () => {
    const file = join(dir, 'hooks.mjs');
    writeFileSync(file, webhookSnippet());
    const output: string[] = [];
    receiver = spawn(process.execPath, [file], {
      env: { ...process.env, SECRET_KEY: app.secretKey, PORT: String(port) },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    receiver.stdout!.on('data', (chunk: Buffer) => output.push(chunk.toString()));
    await waitUntil(() => canConnect(port), 'the snippet to listen');
    const call = await postJson(
      `${api.url}/v1/embeddings`,
      { model: 'text-embedding-v4', input: 'to be announced' },
      app.apiKey,
    );
    expect(call.status).toBe(200);
    const taskId = call.headers.get('x-task-id');
    await waitUntil(() => output.join('').includes(`verified task.succeeded ${taskId}`), 'the verified delivery');

    const forged = await fetch(`http://127.0.0.2:${port}/hooks`, {
      method: 'POST',
      headers: {
        'webhook-id': 'msg_forged',
        'webhook-timestamp': String(Math.floor(Date.now() / 1000)),
        'webhook-signature': 'v1,AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=',
      },
      body: '{"type":"task.succeeded","data":{"task_id":"task_forged"}}',
    });
    expect(forged.status).toBe(401);
    expect(output.join('')).not.toContain('task_forged');
  });
});

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.2', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

function canConnect(port: number): Promise<boolean> {
  return fetch(`http://127.0.0.2:${port}/`, { method: 'HEAD' }).then(
    () => true,
    () => false,
  );
}
