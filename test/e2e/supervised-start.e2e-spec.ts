import { ChildProcess, spawn, spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Redis from 'ioredis';
import { ENTRY_POINTS } from '../../scripts/processes';
import { OpenAiFake } from '../fakes/openai-fake';
import { postJson, ROOT, waitUntil } from '../helpers/gateway';
import { startRedisSentinel, type RedisTopologyUnderTest } from '../helpers/redis-topologies';

// scripts/services.js is the same helper `npm test` uses to start the shared servers.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const services = require('../../scripts/services.js');

const MASTER_KEY = 'b'.repeat(64);
/** Which process `npm start` runs a command line is, by its program. */
const KINDS: [kind: string, program: string][] = [
  ['api', ENTRY_POINTS.api],
  ['worker', ENTRY_POINTS.worker],
  ['redis', 'redis-server'],
  ['ferretdb', 'ferretdb'],
  ['postgres', 'postgres -D'],
];

/** How the stack is started: scripts/start.js itself, or the README's `npm start`, which runs it. */
type Launcher = 'node' | 'npm';

/** `npm start` (scripts/start.js) on free ports with its state in a temp directory, and what it has logged. */
class StartedStack {
  readonly child: ChildProcess;
  log = '';
  /** The API key of an application made once it is ready. */
  apiKey = '';
  readonly exited: Promise<number | null>;

  constructor(
    readonly dir: string,
    readonly ports: Record<'api' | 'metrics' | 'worker', number>,
    env: NodeJS.ProcessEnv,
    args: string[],
    launcher: Launcher,
  ) {
    const [command, commandArgs] =
      launcher === 'npm'
        ? ['npm', ['start', '--silent', '--', ...args]]
        : [process.execPath, [join(ROOT, 'scripts', 'start.js'), ...args]];
    this.child = spawn(command, commandArgs, { cwd: ROOT, env, stdio: ['ignore', 'ignore', 'pipe'] });
    this.child.stderr?.on('data', (chunk: Buffer) => (this.log += chunk.toString()));
    this.exited = new Promise((resolve) => this.child.once('exit', (code) => resolve(code)));
  }

  get url() {
    return `http://127.0.0.1:${this.ports.api}`;
  }

  /** The pid of scripts/start.js: the child itself, or the process npm runs it as, found in the process table. */
  supervisorPid(): number {
    const table = spawnSync('ps', ['-eo', 'pid=,ppid=,args='], { encoding: 'utf8' }).stdout.trim().split('\n');
    const rows = table.map((line) => line.trim().match(/^(\d+)\s+(\d+)\s+(.*)$/)!).filter(Boolean);
    const below = new Set([this.child.pid!]);
    for (let grew = true; grew;) {
      grew = false;
      for (const [, pid, ppid] of rows) {
        if (!below.has(Number(ppid)) || below.has(Number(pid))) continue;
        below.add(Number(pid));
        grew = true;
      }
    }
    const supervisor = rows.find(
      ([, pid, , args]) => below.has(Number(pid)) && /^node .*scripts\/start\.js/.test(args),
    );
    return supervisor ? Number(supervisor[1]) : this.child.pid!;
  }

  /** The pids of the processes `npm start` runs now, read from the process table (its children), by kind. */
  pids(): Record<string, number[]> {
    const listed = spawnSync('ps', ['-o', 'pid=,args=', '--ppid', String(this.supervisorPid())], {
      encoding: 'utf8',
    });
    const pids: Record<string, number[]> = Object.fromEntries(KINDS.map(([kind]) => [kind, []]));
    for (const line of listed.stdout.trim().split('\n')) {
      const [, pid, args] = line.trim().match(/^(\d+) (.*)$/) ?? [];
      const kind = KINDS.find(([, program]) => args?.includes(program))?.[0];
      if (kind) pids[kind].push(Number(pid));
    }
    return pids;
  }
}

/** `redis`: settings of a Redis of the test's own (Sentinel, Cluster); without it, `npm start` embeds one. */
async function startStack(
  upstreamUrl: string,
  args: string[] = [],
  redis?: Record<string, string>,
  launcher: Launcher = 'node',
): Promise<StartedStack> {
  const dir = mkdtempSync(join(tmpdir(), 'gw-supervised-'));
  // PostgreSQL runs as its own user when this runs as root, and must be able to reach its data directory.
  chmodSync(dir, 0o711);
  const free = async () => Number(await services.freePort());
  const ports = { api: await free(), metrics: await free(), worker: await free() };
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    NODE_ENV: 'test',
    LOG_LEVEL: 'silent',
    MASTER_KEY,
    MODELS_CONFIG: join(ROOT, 'test', 'fixtures', 'models.yaml'),
    UPSTREAM_PRIMARY_BASE_URL: upstreamUrl,
    LOCAL_MODELS: 'off',
    SHUTDOWN_TIMEOUT_MS: '3000',
    API_PORT: String(ports.api),
    METRICS_PORT: String(ports.metrics),
    WORKER_PORT: String(ports.worker),
    EMBEDDED_DATA_DIR: join(dir, 'data'),
    EMBEDDED_REDIS_PORT: String(await free()),
    EMBEDDED_MONGODB_PORT: String(await free()),
    EMBEDDED_POSTGRES_PORT: String(await free()),
  };
  // The embedded Redis and database are the point: none from the shared test servers.
  delete env.REDIS_URL;
  delete env.MONGODB_URI;
  Object.assign(env, redis);
  const stack = new StartedStack(dir, ports, env, args, launcher);
  try {
    await waitUntil(
      async () => stack.child.exitCode !== null || (await bothReady(stack)),
      'npm start to be ready',
      90_000,
    );
    if (stack.child.exitCode !== null) throw new Error(`npm start exited with ${stack.child.exitCode}: ${stack.log}`);
    const created = spawnSync(process.execPath, [ENTRY_POINTS.cli, 'apps:create', '--name', 'supervised', '--json'], {
      env: {
        ...env,
        REDIS_URL: redis?.REDIS_URL ?? `redis://127.0.0.1:${env.EMBEDDED_REDIS_PORT}`,
        MONGODB_URI: `mongodb://127.0.0.1:${env.EMBEDDED_MONGODB_PORT}/gateway`,
      },
      encoding: 'utf8',
    });
    if (created.status !== 0) throw new Error(`apps:create failed: ${created.stderr}`);
    stack.apiKey = JSON.parse(created.stdout).apiKey;
  } catch (error) {
    await stopStack(stack);
    throw error;
  }
  return stack;
}

const ready = async (port: number) =>
  (await fetch(`http://127.0.0.1:${port}/health/ready`).catch(() => undefined))?.ok === true;
/** The api's and the (first) worker's readiness: both reach Redis and the database. */
const bothReady = async (stack: StartedStack) =>
  (await ready(stack.ports.metrics)) && (await ready(stack.ports.worker));

/** SIGTERM to `npm start`; resolves with its exit code once it has stopped everything. */
async function stopStack(stack: StartedStack | undefined): Promise<number | null | undefined> {
  if (!stack) return undefined;
  if (stack.child.exitCode === null) stack.child.kill('SIGTERM');
  const code = await stack.exited;
  rmSync(stack.dir, { recursive: true, force: true });
  return code;
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** Waits for `text` in what `npm start` has logged; on a timeout the error shows the log. */
const untilLogged = (stack: StartedStack, text: string, timeoutMs = 15_000) =>
  waitUntil(() => stack.log.includes(text), `npm start to log "${text}"`, timeoutMs).catch((error: Error) => {
    throw new Error(`${error.message}; it logged:\n${stack.log}`);
  });

const embed = (stack: StartedStack, input: string) =>
  postJson(
    `${stack.url}/v1/embeddings`,
    { model: 'text-embedding-v4', input },
    stack.apiKey,
    AbortSignal.timeout(15_000),
  );

/** The jobs a worker has finished, from its own /metrics. */
async function jobsFinished(port: number): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  return [...text.matchAll(/^gateway_job_duration_seconds_count\{[^}]*\} (\d+)/gm)].reduce(
    (sum, [, count]) => sum + Number(count),
    0,
  );
}

/** Asks the api's /health/live every 100 ms until stop(), counting the answers that were not 200. */
function watchLiveness(stack: StartedStack) {
  let failures = 0;
  let answers = 0;
  const timer = setInterval(() => {
    fetch(`${stack.url}/health/live`)
      .then((response) => (response.ok ? (answers += 1) : (failures += 1)))
      .catch(() => (failures += 1));
  }, 100);
  return {
    stop: () => {
      clearInterval(timer);
      return { answers, failures };
    },
  };
}

describe('npm start supervises the processes it starts', () => {
  const upstream = new OpenAiFake();

  beforeAll(() => upstream.start());
  afterAll(() => upstream.stop());

  describe('with one worker', () => {
    let stack: StartedStack | undefined;

    beforeAll(async () => {
      stack = await startStack(upstream.baseUrl);
    }, 120_000);
    afterAll(() => stopStack(stack), 60_000);

    it('starts a new worker after the worker is SIGKILLed, which serves the next request, while the api keeps running', async () => {
      const s = stack!;
      expect((await embed(s, 'before')).status).toBe(200);
      const {
        api: [apiPid],
        worker: [workerPid],
      } = s.pids();
      const liveness = watchLiveness(s);

      process.kill(workerPid, 'SIGKILL');
      // Logged once npm start has reaped the worker: its Redis connections are closed by then. (A job added in the
      // moment between the kill and those closing can still be taken by the dying worker's queued fetch; it is then
      // taken over after JOB_LOCK_MS, as a job of a worker that dies mid-job.)
      await untilLogged(s, `worker-1 (pid ${workerPid}) was killed by SIGKILL; restarting it in 0.5 s`);
      // Sent while no worker may be running: the api holds it until the new worker has answered it.
      const answer = await embed(s, 'after the kill');
      expect(answer.status).toBe(200);
      expect(answer.body.data[0].embedding.length).toBeGreaterThan(0);

      const { api, worker } = s.pids();
      expect(worker).toHaveLength(1);
      expect(worker[0]).not.toBe(workerPid);
      expect(s.log).toContain(`worker-1 restarted (pid ${worker[0]})`);
      // The api never stopped: the same process, answering throughout.
      expect(api).toEqual([apiPid]);
      expect(s.log).not.toMatch(/\] api \(pid \d+\)/);
      const { answers, failures } = liveness.stop();
      expect(failures).toBe(0);
      expect(answers).toBeGreaterThan(0);
      expect(s.child.exitCode).toBeNull();
    });

    it('starts Redis again on its port and data after it is SIGKILLed, and the api and the worker reconnect', async () => {
      const s = stack!;
      const { api, worker, redis } = s.pids();
      const [redisPid] = redis;

      process.kill(redisPid, 'SIGKILL');
      await untilLogged(s, 'redis restarted (pid', 30_000);
      expect(s.log).toMatch(new RegExp(`redis \\(pid ${redisPid}\\) was killed by SIGKILL; restarting it in`));
      await waitUntil(() => bothReady(s), 'the api and the worker to reconnect to Redis', 30_000);
      expect((await embed(s, 'after Redis came back')).status).toBe(200);
      // Reconnected, not restarted.
      expect(s.pids()).toMatchObject({ api, worker });
    });

    it('starts FerretDB again on its port after it is SIGKILLed, and the api and the worker reconnect', async () => {
      const s = stack!;
      const { api, worker, ferretdb } = s.pids();
      const [ferretDbPid] = ferretdb;

      process.kill(ferretDbPid, 'SIGKILL');
      await untilLogged(s, 'ferretdb restarted (pid', 30_000);
      expect(s.log).toMatch(new RegExp(`ferretdb \\(pid ${ferretDbPid}\\) was killed by SIGKILL; restarting it in`));
      await waitUntil(() => bothReady(s), 'the api and the worker to reconnect to the database', 30_000);
      expect((await embed(s, 'after FerretDB came back')).status).toBe(200);
      expect(s.pids()).toMatchObject({ api, worker });
    });

    it('starts PostgreSQL again after it is SIGKILLed, and FerretDB, the api and the worker reconnect', async () => {
      const s = stack!;
      const { api, worker, ferretdb, postgres } = s.pids();

      process.kill(postgres[0], 'SIGKILL');
      await untilLogged(s, 'postgresql restarted (pid', 60_000);
      expect(s.log).toMatch(new RegExp(`postgresql \\(pid ${postgres[0]}\\) was killed by SIGKILL; restarting it in`));
      await waitUntil(() => bothReady(s), 'the api and the worker to reach the database again', 30_000);
      expect((await embed(s, 'after PostgreSQL came back')).status).toBe(200);
      expect(s.pids()).toMatchObject({ api, worker, ferretdb });
    }, 120_000);

    it('stops everything on SIGTERM, restarting nothing', async () => {
      const s = stack!;
      const pids = Object.values(s.pids()).flat();
      expect(pids).toHaveLength(5);
      const logged = s.log.length;
      stack = undefined;
      expect(await stopStack(s)).toBe(0);
      expect(pids.filter(alive)).toEqual([]);
      expect(s.log.slice(logged)).not.toContain('restarting it in');
    }, 60_000);
  });

  describe('run as the README runs it, `npm start`', () => {
    let stack: StartedStack | undefined;
    let left: number[] = [];

    beforeAll(async () => {
      stack = await startStack(upstream.baseUrl, [], undefined, 'npm');
    }, 120_000);
    afterAll(async () => {
      // Whatever outlived the test (the failure it looks for) is stopped here, not left to the next suites.
      for (const pid of left.filter(alive)) process.kill(pid, 'SIGKILL');
      await stopStack(stack);
    }, 60_000);

    it('stops everything it started when npm itself gets SIGTERM, as a process manager sends it', async () => {
      const s = stack!;
      const pids = [s.supervisorPid(), ...Object.values(s.pids()).flat()];
      expect(pids).toHaveLength(6);
      left = pids;
      stack = undefined;
      await stopStack(s);
      await waitUntil(() => pids.every((pid) => !alive(pid)), 'every process npm start ran to stop', 20_000).catch(
        () => undefined,
      );
      expect(pids.filter(alive)).toEqual([]);
    }, 60_000);
  });

  describe('with Redis Sentinel settings and no REDIS_URL', () => {
    let sentinel: RedisTopologyUnderTest | undefined;
    let stack: StartedStack | undefined;

    beforeAll(async () => {
      sentinel = await startRedisSentinel();
      const { REDIS_URL: closedPort, ...sentinelOnly } = sentinel.env;
      void closedPort;
      stack = await startStack(upstream.baseUrl, [], sentinelOnly);
    }, 120_000);
    afterAll(async () => {
      await stopStack(stack);
      await sentinel?.stop();
    }, 60_000);

    it('starts no Redis of its own, and serves through the master the sentinel names', async () => {
      const s = stack!;
      expect(s.pids().redis).toEqual([]);
      expect(s.log).not.toContain('redis-server');
      expect((await embed(s, 'through the sentinel')).status).toBe(200);
      const master = new Redis(sentinel!.ports[0], '127.0.0.1', { lazyConnect: true, maxRetriesPerRequest: 1 });
      try {
        expect((await master.keys('*:embeddings:*')).length).toBeGreaterThan(0);
      } finally {
        master.disconnect();
      }
    });
  });

  describe('with --workers 2', () => {
    let stack: StartedStack | undefined;

    beforeAll(async () => {
      stack = await startStack(upstream.baseUrl, ['--workers', '2']);
    }, 120_000);
    afterAll(() => stopStack(stack), 60_000);

    it('runs two workers, each on its own metrics port, and both take jobs', async () => {
      const s = stack!;
      const { worker } = s.pids();
      expect(new Set(worker).size).toBe(2);
      const ports = [s.ports.worker, s.ports.worker + 1];
      expect(s.log).toContain(`workers on http://127.0.0.1:${ports[0]}, http://127.0.0.1:${ports[1]}`);

      upstream.setDelay(50);
      try {
        await waitUntil(
          async () => {
            const answers = await Promise.all(Array.from({ length: 8 }, (_, i) => embed(s, `spread ${i}`)));
            expect(answers.map((answer) => answer.status)).toEqual(Array(8).fill(200));
            const finished = await Promise.all(ports.map(jobsFinished));
            return finished.every((count) => count > 0);
          },
          'both workers to have finished a job',
          30_000,
        );
      } finally {
        upstream.setDelay(0);
      }
    });
  });
});
