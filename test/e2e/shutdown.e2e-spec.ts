import { ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EnvSource, FORCED_SHUTDOWN_EXIT_CODE } from '@gateway/common';
import { ENTRY_POINTS } from '../../scripts/processes';
import { fakeVector, OpenAiFake } from '../fakes/openai-fake';
import {
  createApplication,
  getJson,
  postJson,
  processEnv,
  spawnWorker,
  startApi,
  startWorker,
  testEnv,
  waitUntil,
} from '../helpers/gateway';
import { OwnDatabase } from '../helpers/own-database';

// scripts/services.js is the same helper `npm test` uses to start the shared servers.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const services = require('../../scripts/services.js');

const SHUTDOWN_TIMEOUT_MS = 3000;
// For the process to log and exit once its deadline fires, and for this one to hear of it.
const EXIT_MARGIN_MS = 1500;

interface GatewayProcess {
  child: ChildProcess;
  url: string;
  exited: Promise<number | null>;
}

/** An api or a worker from the build, as a deployment runs it, once it answers its readiness check. */
async function startProcess(app: 'api' | 'worker', env: EnvSource): Promise<GatewayProcess> {
  const [port, metricsPort] = [await services.freePort(), await services.freePort()];
  const url = `http://127.0.0.1:${port}`;
  // The worker's one listener is its operations listener; the api's is METRICS_PORT.
  const readyUrl = `http://127.0.0.1:${app === 'api' ? metricsPort : port}/health/ready`;
  const child = spawn(process.execPath, [ENTRY_POINTS[app]], {
    env: processEnv({ ...env, API_PORT: port, METRICS_PORT: metricsPort, WORKER_PORT: port }),
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  // Kept, not shown: with Redis killed, ioredis reports every failed reconnection there.
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const ready = async () => (await fetch(readyUrl).catch(() => undefined))?.ok === true;
  await waitUntil(async () => child.exitCode !== null || (await ready()), `the ${app} to be ready`, 30_000);
  if (child.exitCode !== null)
    throw new Error(`the ${app} exited with code ${child.exitCode} while starting: ${stderr}`);
  return { child, url, exited };
}

/** SIGTERM, then the exit code and how long it took, or 'still running' once `limitMs` has passed. */
async function terminate({ child, exited }: Pick<GatewayProcess, 'child' | 'exited'>, limitMs: number) {
  const sentAt = Date.now();
  child.kill('SIGTERM');
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<'still running'>(
    (resolve) => (timer = setTimeout(() => resolve('still running'), limitMs)),
  );
  const code = await Promise.race([exited, limit]);
  clearTimeout(timer);
  return { code, ms: Date.now() - sentAt };
}

describe('shutdown of a gateway process', () => {
  const upstream = new OpenAiFake();

  beforeAll(() => upstream.start());
  afterAll(() => upstream.stop());
  beforeEach(() => {
    upstream.reset();
    upstream.setDelay(0);
  });

  describe('on a Redis and a database of its own, which the test can kill', () => {
    let dir: string;
    let redis: ChildProcess;
    let database: OwnDatabase;
    let env: EnvSource;
    const running: ChildProcess[] = [];

    beforeEach(async () => {
      dir = mkdtempSync(join(tmpdir(), 'gw-shutdown-'));
      const redisPort = await services.freePort();
      redis = await services.startRedis({ port: redisPort, dir: join(dir, 'redis') });
      database = await OwnDatabase.start('shutdown');
      env = testEnv({
        REDIS_URL: `redis://127.0.0.1:${redisPort}`,
        MONGODB_URI: database.uri('shutdown'),
        UPSTREAM_PRIMARY_BASE_URL: upstream.baseUrl,
        SHUTDOWN_TIMEOUT_MS,
      });
    });

    afterEach(async () => {
      for (const child of running.splice(0)) child.kill('SIGKILL');
      await Promise.all([services.stop(redis, 'SIGKILL'), database.close()]);
      rmSync(dir, { recursive: true, force: true });
    });

    const start = async (app: 'api' | 'worker') => {
      const started = await startProcess(app, env);
      running.push(started.child);
      return started;
    };

    const killRedisAndDatabase = () => Promise.all([services.stop(redis, 'SIGKILL'), database.kill()]);

    it('exits 0, well within SHUTDOWN_TIMEOUT_MS, when Redis and the database answer', async () => {
      const [api, worker] = await Promise.all([start('api'), start('worker')]);
      const [apiExit, workerExit] = await Promise.all([
        terminate(api, SHUTDOWN_TIMEOUT_MS + EXIT_MARGIN_MS),
        terminate(worker, SHUTDOWN_TIMEOUT_MS + EXIT_MARGIN_MS),
      ]);
      expect(apiExit.code).toBe(0);
      expect(workerExit.code).toBe(0);
      expect(Math.max(apiExit.ms, workerExit.ms)).toBeLessThan(SHUTDOWN_TIMEOUT_MS);
    });

    it('ends an idle worker by SHUTDOWN_TIMEOUT_MS, with the forced exit code, when Redis and the database are gone', async () => {
      const worker = await start('worker');
      await killRedisAndDatabase();

      const { code, ms } = await terminate(worker, SHUTDOWN_TIMEOUT_MS + EXIT_MARGIN_MS);
      expect(code).toBe(FORCED_SHUTDOWN_EXIT_CODE);
      expect(ms).toBeGreaterThanOrEqual(SHUTDOWN_TIMEOUT_MS);
    });

    it('ends an api holding a caller (answered 504 with its task id) and the worker running its job by SHUTDOWN_TIMEOUT_MS when Redis and the database are gone', async () => {
      const setup = await startApi(env);
      const { apiKey } = await createApplication(setup).finally(() => setup.close());
      const [api, worker] = await Promise.all([start('api'), start('worker')]);
      // The contract hook reads this api's OpenAPI document at its first /v1 answer: here, not after SIGTERM.
      expect((await getJson(`${api.url}/v1/models`, apiKey)).status).toBe(200);
      upstream.setDelay(60_000);
      const held = postJson(`${api.url}/v1/embeddings`, { model: 'text-embedding-v4', input: 'held' }, apiKey).catch(
        (error: Error) => error,
      );
      await waitUntil(() => upstream.calls.length === 1, 'the worker to call the upstream');
      await killRedisAndDatabase();

      const [apiExit, workerExit] = await Promise.all([
        terminate(api, SHUTDOWN_TIMEOUT_MS + EXIT_MARGIN_MS),
        terminate(worker, SHUTDOWN_TIMEOUT_MS + EXIT_MARGIN_MS),
      ]);
      // The api answers its held caller before closing the server, then fails to close its queues on the absent
      // Redis: an error exit (1), or the forced one if a close hangs; never a clean 0.
      expect([1, FORCED_SHUTDOWN_EXIT_CODE]).toContain(apiExit.code);
      expect(workerExit.code).toBe(FORCED_SHUTDOWN_EXIT_CODE);
      const answer = await held;
      expect(answer).toMatchObject({ status: 504 });
      expect((answer as { headers: Headers }).headers.get('x-task-id')).toMatch(/^task_/);
    });
  });

  it('exits 0 on SIGTERM while a client holds a connection that never sent a request', async () => {
    // Node would wait for its headers (headersTimeout, 60 s), past SHUTDOWN_TIMEOUT_MS: a forced exit.
    const api = await startProcess('api', testEnv({ SHUTDOWN_TIMEOUT_MS }));
    const spare = connect(Number(new URL(api.url).port), '127.0.0.1');
    const cut = new Promise((resolve) => spare.once('close', resolve));
    try {
      await new Promise((resolve) => spare.once('connect', resolve));
      const { code } = await terminate(api, SHUTDOWN_TIMEOUT_MS + EXIT_MARGIN_MS);
      expect(code).toBe(0);
      await cut;
    } finally {
      spare.destroy();
      api.child.kill('SIGKILL');
    }
  });

  it('lets a worker finish its active job on SIGTERM, answer the caller, and exit 0', async () => {
    const env = testEnv({ UPSTREAM_PRIMARY_BASE_URL: upstream.baseUrl, SHUTDOWN_TIMEOUT_MS });
    const api = await startApi(env);
    const worker = spawnWorker(env);
    const exited = new Promise<number | null>((resolve) => worker.once('exit', (code) => resolve(code)));
    try {
      const { apiKey } = await createApplication(api);
      upstream.setDelay(1000);
      const pending = postJson(
        `${api.url}/v1/embeddings`,
        { model: 'text-embedding-v4', input: 'during shutdown', dimensions: 64 },
        apiKey,
      );
      await waitUntil(() => upstream.calls.length === 1, 'the worker to call the upstream', 20_000);
      const { code } = await terminate({ child: worker, exited }, SHUTDOWN_TIMEOUT_MS + EXIT_MARGIN_MS);
      expect(code).toBe(0);
      const response = await pending;
      expect(response.status).toBe(200);
      expect(response.body.data[0].embedding).toEqual(fakeVector('during shutdown', 64));
    } finally {
      worker.kill('SIGKILL');
      await api.close();
    }
  });

  it('leaves a job still running at the deadline to another worker, which finishes it', async () => {
    const env = testEnv({
      UPSTREAM_PRIMARY_BASE_URL: upstream.baseUrl,
      JOB_LOCK_MS: 1500,
      SYNC_TIMEOUT_MS: 30_000,
      SHUTDOWN_TIMEOUT_MS,
    });
    const api = await startApi(env);
    const leaving = spawnWorker(env);
    const leavingExited = new Promise<number | null>((resolve) => leaving.once('exit', (code) => resolve(code)));
    let rescuer: { close(): Promise<void> } | undefined;
    try {
      const { apiKey } = await createApplication(api);
      upstream.setDelay(60_000);
      const pending = postJson(
        `${api.url}/v1/embeddings`,
        { model: 'text-embedding-v4', input: 'outlives its worker', dimensions: 64 },
        apiKey,
      );
      await waitUntil(() => upstream.calls.length === 1, 'the first worker to call the upstream', 20_000);
      const { code } = await terminate({ child: leaving, exited: leavingExited }, SHUTDOWN_TIMEOUT_MS + EXIT_MARGIN_MS);
      expect(code).toBe(FORCED_SHUTDOWN_EXIT_CODE);

      upstream.setDelay(0);
      rescuer = await startWorker(env);
      const response = await pending;
      expect(response.status).toBe(200);
      expect(response.body.data[0].embedding).toEqual(fakeVector('outlives its worker', 64));
      expect(upstream.calls).toHaveLength(2);
      const task = await getJson(`${api.url}/v1/tasks/${response.headers.get('x-task-id')}`, apiKey);
      expect(task.body.status).toBe('succeeded');
    } finally {
      leaving.kill('SIGKILL');
      await Promise.all([api.close(), rescuer?.close()]);
    }
  });
});
