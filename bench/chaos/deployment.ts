/**
 * The gateway the chaos bench breaks: two api instances and two workers as OS processes from the build, Redis with
 * AOF and the embedded database (FerretDB, over a PostgreSQL of its own or a given one) on free ports under one
 * directory, and the upstream fakes of test/fakes behind fault-injecting proxies. Every process logs to its own file
 * under `<dir>/logs`; a restarted process appends to the same file after a marker line.
 */
import { ChildProcess, execFile, spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { DashScopeFake, startDashScopeFake } from '../../test/fakes/dashscope-fake';
import { OpenAiFake } from '../../test/fakes/openai-fake';
import { ENTRY_POINTS } from '../../scripts/processes';
import { FaultyUpstream, UpstreamMode } from './faulty-upstream';
// eslint-disable-next-line @typescript-eslint/no-require-imports
const services = require('../../scripts/services.js');

const ROOT = path.resolve(__dirname, '..', '..');
/** The upstream keys the gateway sends; the fakes only need one to be there. */
const UPSTREAM_KEY = 'sk-chaos-upstream';
/** How long a killed or stopped process may take to go. */
const STOP_WAIT_MS = 5000;

/** Every process any deployment started and not yet seen to exit: the last guard kills them when this one exits. */
const everyChild = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of everyChild) child.kill('SIGKILL');
});

export type Role = 'api' | 'worker';

export interface DeploymentOptions {
  /** Where data and logs go. */
  dir: string;
  /** A running PostgreSQL for FerretDB (npm test's); absent: a cluster of its own under `dir`. */
  postgresUrl?: string;
  /** Gateway settings on top of the bench's own (SYNC_TIMEOUT_MS, UPSTREAM_TIMEOUT_MS, JOB_LOCK_MS, …). */
  settings: Record<string, string | number>;
  /** Latency of every upstream call, uniformly drawn between the two. */
  latencyMs: [number, number];
  readyTimeoutMs?: number;
  log: (line: string) => void;
}

interface GatewayProcess {
  role: Role;
  index: number;
  port: number;
  /** Where /health/ready answers: the api's METRICS_PORT, the worker's own port. */
  readyPort: number;
  logFile: string;
  child?: ChildProcess;
}

export class ChaosDeployment {
  readonly logsDir: string;
  readonly env: Record<string, string> = {};
  readonly redisPrefix = 'chaos';
  apis: GatewayProcess[] = [];
  workers: GatewayProcess[] = [];
  redisUrl = '';
  mongoUrl = '';
  private redisPort = 0;
  private mongoPort = 0;
  private redis?: ChildProcess;
  private postgres?: ChildProcess;
  private postgresUrl = '';
  private ferretDb?: ChildProcess;
  private openAi?: OpenAiFake;
  private dashScope?: DashScopeFake;
  private proxies: FaultyUpstream[] = [];
  /** Every child process started and not yet seen to exit, for teardown. */
  private readonly children = new Set<ChildProcess>();

  constructor(private readonly options: DeploymentOptions) {
    this.logsDir = path.join(options.dir, 'logs');
    fs.mkdirSync(this.logsDir, { recursive: true });
  }

  get apiUrls(): string[] {
    return this.apis.map((api) => `http://127.0.0.1:${api.port}`);
  }

  /** Log files of the gateway's processes and services, by name. */
  logFiles(): Record<string, string> {
    return Object.fromEntries(
      fs
        .readdirSync(this.logsDir)
        .filter((file) => file.endsWith('.log'))
        .map((file) => [file.replace(/\.log$/, ''), path.join(this.logsDir, file)]),
    );
  }

  async start(): Promise<void> {
    const [redisPort, mongoPort, postgresPort, api0, api1, worker0, worker1, metrics0, metrics1] =
      await distinctFreePorts(9);
    this.redisPort = redisPort;
    this.mongoPort = mongoPort;
    this.redis = this.track(await this.startRedis());
    if (this.options.postgresUrl) {
      this.postgresUrl = this.options.postgresUrl;
    } else {
      const postgres = await services.startPostgres({
        port: postgresPort,
        dir: path.join(this.options.dir, 'postgres'),
        durable: false,
        logFile: path.join(this.logsDir, 'postgres.log'),
      });
      this.postgres = this.track(postgres.child);
      this.postgresUrl = postgres.url;
    }
    this.ferretDb = this.track(await this.startFerretDb());
    this.openAi = await new OpenAiFake().start();
    this.dashScope = await startDashScopeFake();
    const [minMs, maxMs] = this.options.latencyMs;
    const openAiProxy = await new FaultyUpstream(this.openAi.baseUrl.replace(/\/v1$/, ''), { minMs, maxMs }).start();
    const dashScopeProxy = await new FaultyUpstream(this.dashScope.url, { minMs, maxMs }).start();
    this.proxies = [openAiProxy, dashScopeProxy];

    this.redisUrl = `redis://127.0.0.1:${redisPort}`;
    this.mongoUrl = `mongodb://127.0.0.1:${mongoPort}/chaos`;
    Object.assign(this.env, inheritedEnv(), {
      NODE_ENV: 'production',
      LOG_LEVEL: 'info',
      REDIS_URL: this.redisUrl,
      MONGODB_URI: this.mongoUrl,
      REDIS_PREFIX: this.redisPrefix,
      MASTER_KEY: crypto.randomBytes(32).toString('hex'),
      MODELS_CONFIG: path.join(ROOT, 'test', 'fixtures', 'models.yaml'),
      LOCAL_MODELS: 'off',
      UPSTREAM_PRIMARY_BASE_URL: `${openAiProxy.url}/v1`,
      UPSTREAM_PRIMARY_API_KEY: UPSTREAM_KEY,
      UPSTREAM_DASHSCOPE_BASE_URL: dashScopeProxy.url,
      UPSTREAM_DASHSCOPE_API_KEY: UPSTREAM_KEY,
      API_HOST: '127.0.0.1',
      WORKER_HOST: '127.0.0.1',
      ...Object.fromEntries(Object.entries(this.options.settings).map(([name, value]) => [name, String(value)])),
    });
    const metricsPorts = [metrics0, metrics1];
    this.apis = [api0, api1].map((port, index) => this.gatewayProcess('api', index, port, metricsPorts[index]));
    this.workers = [worker0, worker1].map((port, index) => this.gatewayProcess('worker', index, port, port));
    await Promise.all([...this.apis, ...this.workers].map((process) => this.launch(process)));
  }

  /** Creates an application with the operator CLI, as an operator would; its App ID and API key. */
  createApplication(name: string): Promise<{ appId: string; apiKey: string }> {
    const logFile = path.join(this.logsDir, 'cli.log');
    return new Promise((resolve, reject) => {
      execFile(
        process.execPath,
        [ENTRY_POINTS.cli, 'apps:create', '--name', name, '--json'],
        { cwd: ROOT, env: this.env, timeout: 120_000 },
        (error, stdout, stderr) => {
          fs.appendFileSync(logFile, `apps:create ${name}\n${stderr}`);
          if (error) return reject(new Error(`apps:create ${name} failed: ${error.message}\n${stderr}`));
          try {
            const { appId, apiKey } = JSON.parse(stdout.trim().split('\n').pop()!);
            resolve({ appId, apiKey });
          } catch {
            reject(new Error(`apps:create ${name} printed no JSON: ${stdout}\n${stderr}`));
          }
        },
      );
    });
  }

  async kill(role: Role, index: number): Promise<void> {
    const target = (role === 'api' ? this.apis : this.workers)[index];
    this.options.log(`SIGKILL ${role}-${index + 1} (pid ${target.child?.pid})`);
    await stopChild(target.child, 'SIGKILL');
  }

  async restart(role: Role, index: number): Promise<void> {
    await this.launch((role === 'api' ? this.apis : this.workers)[index]);
  }

  /** Stops Redis gracefully (its AOF written out), then starts it again on the same port and data. */
  async restartRedis(): Promise<void> {
    this.options.log('stopping Redis (SIGTERM)');
    await stopChild(this.redis, 'SIGTERM');
    this.redis = this.track(await this.startRedis());
    this.options.log('Redis is back');
  }

  async stopDatabase(): Promise<void> {
    this.options.log(`stopping FerretDB (pid ${this.ferretDb?.pid})`);
    await stopChild(this.ferretDb, 'SIGTERM');
  }

  async startDatabase(): Promise<void> {
    this.ferretDb = this.track(await this.startFerretDb());
    this.options.log('FerretDB is back');
  }

  setUpstreamMode(mode: UpstreamMode): void {
    this.options.log(`upstreams ${mode}`);
    for (const proxy of this.proxies) proxy.mode = mode;
  }

  /** Stops everything, each wait bounded; safe to call more than once and after a partial start. */
  async teardown(): Promise<void> {
    await Promise.all(
      [...this.apis, ...this.workers].map((process) => stopChild(process.child, 'SIGTERM', STOP_WAIT_MS)),
    );
    await Promise.all(this.proxies.map((proxy) => proxy.stop()));
    await Promise.all([this.openAi?.stop(), this.dashScope?.close()]);
    await stopChild(this.ferretDb, 'SIGTERM');
    await stopChild(this.postgres, 'SIGINT');
    await stopChild(this.redis, 'SIGTERM');
    // Anything left (a process started while another was being stopped).
    await Promise.all([...this.children].map((child) => stopChild(child, 'SIGKILL')));
  }

  private gatewayProcess(role: Role, index: number, port: number, readyPort: number): GatewayProcess {
    return { role, index, port, readyPort, logFile: path.join(this.logsDir, `${role}-${index + 1}.log`) };
  }

  /** Starts a gateway process and waits until its /health/ready answers 200. */
  private async launch(target: GatewayProcess): Promise<void> {
    const name = `${target.role}-${target.index + 1}`;
    fs.appendFileSync(
      target.logFile,
      `${JSON.stringify({ chaos: `starting ${name}`, at: new Date().toISOString() })}\n`,
    );
    const out = fs.openSync(target.logFile, 'a');
    const child = spawn(process.execPath, [ENTRY_POINTS[target.role]], {
      cwd: ROOT,
      env: {
        ...this.env,
        ...(target.role === 'api'
          ? { API_PORT: String(target.port), METRICS_PORT: String(target.readyPort) }
          : { WORKER_PORT: String(target.port) }),
      },
      stdio: ['ignore', out, out],
    });
    fs.closeSync(out);
    target.child = this.track(child);
    await services.waitFor(
      () => isReady(target.readyPort),
      `${name} on port ${target.port} (log: ${target.logFile})`,
      child,
      this.options.readyTimeoutMs ?? 60_000,
    );
    this.options.log(`${name} ready (pid ${child.pid})`);
  }

  private startRedis(): Promise<ChildProcess> {
    return services.startRedis({
      port: this.redisPort,
      dir: path.join(this.options.dir, 'redis'),
      persist: true,
      logFile: path.join(this.logsDir, 'redis.log'),
    });
  }

  private startFerretDb(): Promise<ChildProcess> {
    return services.startFerretDb({
      port: this.mongoPort,
      postgresUrl: this.postgresUrl,
      stateDir: path.join(this.options.dir, 'ferretdb'),
      logFile: path.join(this.logsDir, 'ferretdb.log'),
    });
  }

  private track(child: ChildProcess): ChildProcess {
    this.children.add(child);
    everyChild.add(child);
    child.once('exit', () => {
      this.children.delete(child);
      everyChild.delete(child);
    });
    return child;
  }
}

/** Sends `signal` and waits for the exit, at most `waitMs`, then SIGKILL and at most as long again. */
async function stopChild(
  child: ChildProcess | undefined,
  signal: NodeJS.Signals,
  waitMs = STOP_WAIT_MS,
): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const within = (ms: number) => Promise.race([exited.then(() => true), delay(ms).then(() => false)]);
  child.kill(signal);
  if (await within(waitMs)) return;
  child.kill('SIGKILL');
  await within(waitMs);
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}

/** This process's environment without what would route or store the gateway's data elsewhere. */
function inheritedEnv(): Record<string, string> {
  const dropped =
    /^(UPSTREAM_|TEST_|BENCH_)|^(MODELS_CONFIG|INSTANCE_ID|REDIS_PREFIX|QUEUE_PREFIX|API_PORT|METRICS_PORT|WORKER_PORT)$/;
  return Object.fromEntries(
    Object.entries(process.env).filter((entry): entry is [string, string] => !dropped.test(entry[0]) && !!entry[1]),
  );
}

/** freePort() closes its socket before answering, so two calls may return the same port: ask until all differ. */
async function distinctFreePorts(count: number): Promise<number[]> {
  const ports = new Set<number>();
  while (ports.size < count) ports.add(await services.freePort());
  return [...ports];
}

function isReady(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const req = http.get({ host: '127.0.0.1', port, path: '/health/ready', timeout: 2000 }, (res) => {
      res.resume();
      resolve(res.statusCode === 200);
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(false));
  });
}
