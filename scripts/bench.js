'use strict';
// Runs a benchmark against a throwaway gateway: `node scripts/bench.js overhead [--duration 10 --connections 50 …]`.
// Starts Redis, FerretDB, the fake OpenAI upstream, one api and one worker on free ports under a temp dir, creates an
// application, runs bench/<name>.ts (extra arguments are passed through), then stops everything and deletes the dir.
// BENCH_KEEP_TMP=1 keeps the temp dir (and its logs) for a look afterwards; BENCH_NODE_ARGS adds node flags to the
// api and worker (e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof"). `overhead --peer portkey` also starts Portkey's
// gateway in front of the same fake upstream, for a side-by-side run. `--workers N` starts N workers instead of one
// (bench:held picks its own number).
const { spawn, execFile } = require('node:child_process');
const crypto = require('node:crypto');
const fs = require('node:fs');
const http = require('node:http');
const os = require('node:os');
const path = require('node:path');
const services = require('./services');
const { ENTRY_POINTS } = require('./processes');

const root = path.resolve(__dirname, '..');
/**
 * The benches: a file, or a file and what the bench needs of the stack beyond one worker on the defaults, from its
 * own arguments (`setup`): `env` for the api and the workers, `fakeArgs` for the fake upstream, `workers`, and
 * `fdLimit`, the open-files limit of every Node process of the run.
 */
const BENCHES = {
  overhead: 'bench/overhead.ts',
  stages: 'bench/stages.ts',
  'image-memory': 'bench/image-memory.ts',
  held: { file: 'bench/held.ts', setup: heldSetup },
  soak: 'bench/soak.ts',
  floor: 'bench/floor.ts',
  hostile: 'bench/hostile.ts',
  capacity: 'bench/capacity.ts',
};
/**
 * Held calls one worker of bench:held takes at once (WORKER_CONCURRENCY) with as many upstream connections
 * (UPSTREAM_CONNECTIONS): two workers hold 10,000 upstream calls together.
 */
const UPSTREAM_CONNECTIONS_PER_WORKER = 5_000;
/** bench:held's sockets: 10,000 callers, as many api connections and upstream calls, and the fake's side of those. */
const HELD_FD_LIMIT = 65536;
const READY_TIMEOUT_MS = 60_000;
/** Workers boot together and share the CPUs: each one past the first gets this much longer to become ready. */
const READY_TIMEOUT_PER_WORKER_MS = 3_000;
/** Peer gateways the overhead and floor benches can measure beside this one: `--peer <name>`. */
const PEERS = { portkey: startPortkey };
const PEER_BENCHES = ['overhead', 'floor'];

/** Everything started so far, stopped in reverse order by cleanup(). */
const started = [];
let tmpDir;
let cleaningUp;
let interrupted = false;

async function main() {
  const [name, ...rest] = process.argv.slice(2);
  // --with-limits: the bench application gets a daily and a concurrency limit it never reaches, so every request
  // pays for the admission script and the worker's settle; compare with a run without it.
  const withLimits = rest.includes('--with-limits');
  const { value: peer, args: afterPeer } = takeOption(
    rest.filter((arg) => arg !== '--with-limits'),
    'peer',
  );
  const { value: workersOption, args: extraArgs } = takeOption(afterPeer, 'workers');
  const bench = benchOf(name);
  const workersWanted = workersOption === undefined ? undefined : Number(workersOption);
  if (
    !bench ||
    (peer !== undefined && (!PEER_BENCHES.includes(name) || !PEERS[peer])) ||
    (workersWanted !== undefined && !(Number.isInteger(workersWanted) && workersWanted >= 1 && workersWanted <= 64))
  ) {
    process.stderr.write(
      `Usage: node scripts/bench.js <${Object.keys(BENCHES).join('|')}> [--workers 1-64] [bench options]\n` +
        `       node scripts/bench.js <${PEER_BENCHES.join('|')}> --peer <${Object.keys(PEERS).join('|')}> [bench options]\n`,
    );
    return 2;
  }
  // The fake upstream answers at once unless a bench asks for latency: what is measured is the gateway's own cost.
  const setup = { workers: 1, fakeArgs: ['--latency-ms', '0'], env: {}, ...bench.setup?.(extraArgs, workersWanted) };
  if (workersWanted !== undefined) setup.workers = workersWanted;
  services.ensureNodeModules(root);
  services.ensureBuilt(root);

  tmpDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-bench-'));
  const logFile = (what) => path.join(tmpDir, `${what}.log`);
  fs.chmodSync(tmpDir, 0o711);
  const [
    redisPort,
    mongoPort,
    postgresPort,
    ferretDbDebugPort,
    fakePort,
    apiPort,
    metricsPort,
    peerPort,
    ...workerPorts
  ] = await distinctFreePorts(8 + setup.workers);
  const [workerPort] = workerPorts;
  services.log(`temp dir ${tmpDir}`);

  const redis = await services.startRedis({
    port: redisPort,
    dir: path.join(tmpDir, 'redis'),
    logFile: logFile('redis'),
  });
  started.push(redis);
  const database = await services.startDatabase({
    port: mongoPort,
    postgresPort,
    dir: tmpDir,
    durable: false,
    logDir: tmpDir,
    debugPort: ferretDbDebugPort,
  });
  started.push(database.postgres, database.ferretDb);
  const fake = await startFake(fakePort, logFile('fake'), setup);
  const peerProcess = peer && PEERS[peer](peerPort, logFile(peer));

  const logLevel = process.env.LOG_LEVEL || 'info';
  const env = gatewayEnv({
    REDIS_URL: `redis://127.0.0.1:${redisPort}`,
    MONGODB_URI: `mongodb://127.0.0.1:${mongoPort}/bench`,
    // A fresh key per run: the database is thrown away with it.
    MASTER_KEY: crypto.randomBytes(32).toString('hex'),
    API_HOST: '127.0.0.1',
    API_PORT: String(apiPort),
    METRICS_HOST: '127.0.0.1',
    METRICS_PORT: String(metricsPort),
    WORKER_HOST: '127.0.0.1',
    WORKER_PORT: String(workerPort),
    LOG_LEVEL: logLevel,
    NODE_ENV: process.env.NODE_ENV || 'production',
    REDIS_PREFIX: 'bench',
    // The gateway benches measure the gateway; bench:local measures the local models.
    LOCAL_MODELS: process.env.LOCAL_MODELS || 'off',
    UPSTREAM_OPENAI_BASE_URL: fake.baseUrl,
    // The fake ignores it; set so the gateway sends the same Authorization header as the direct calls.
    UPSTREAM_OPENAI_API_KEY: 'none',
    // text-embedding-v4, the benches' model, is DashScope's (compatible mode, which the fake serves under its root).
    UPSTREAM_DASHSCOPE_BASE_URL: fake.baseUrl.replace(/\/v1$/, ''),
    UPSTREAM_DASHSCOPE_API_KEY: 'none',
    ...setup.env,
  });

  const api = startNode(ENTRY_POINTS.api, env, logFile('api'), setup.fdLimit);
  started.push(api);
  const workers = workerPorts.map((port, i) => {
    const what = workerName(i);
    const child = startNode(ENTRY_POINTS.worker, { ...env, WORKER_PORT: String(port) }, logFile(what), setup.fdLimit);
    started.push(child);
    return { what, port, child };
  });
  await Promise.all([
    services.waitFor(() => isReady(metricsPort), `api on port ${apiPort}`, api, READY_TIMEOUT_MS),
    ...workers.map(({ what, port, child }) =>
      services.waitFor(
        () => isReady(port),
        `${what} on port ${port}`,
        child,
        READY_TIMEOUT_MS + (workers.length - 1) * READY_TIMEOUT_PER_WORKER_MS,
      ),
    ),
    peerProcess &&
      services.waitFor(() => isReady(peerPort, '/'), `${peer} on port ${peerPort}`, peerProcess, READY_TIMEOUT_MS),
  ]);
  services.log(
    `api ${apiPort} (metrics ${metricsPort}), ${workers.length === 1 ? 'worker' : `${workers.length} workers from`} ${workerPort}, ` +
      `redis ${redisPort}, ferretdb ${mongoPort}, fake upstream ${fake.baseUrl}` +
      (peer ? `, ${peer} ${peerPort}` : ''),
  );
  const settings = Object.entries(setup.env).map(([key, value]) => `${key}=${value}`);
  if (settings.length) services.log(`bench settings: ${settings.join(' ')}`);

  const app = await createApp(env, withLimits);
  services.log(
    `application limits: ${withLimits ? 'daily 1000000000, concurrency 10000 (checked on every request)' : 'none'}`,
  );
  const code = await runBench(bench.file, extraArgs, setup.fdLimit, {
    ...process.env,
    BENCH_API_URL: `http://127.0.0.1:${apiPort}`,
    BENCH_API_METRICS_URL: `http://127.0.0.1:${metricsPort}`,
    BENCH_WORKER_URL: `http://127.0.0.1:${workerPort}`,
    BENCH_UPSTREAM_URL: fake.baseUrl,
    BENCH_API_KEY: app.apiKey,
    BENCH_MONGODB_URI: env.MONGODB_URI,
    BENCH_REDIS_URL: env.REDIS_URL,
    BENCH_POSTGRES_URL: database.postgresUrl,
    BENCH_PSQL: path.join(services.ensurePostgres(), 'psql'),
    BENCH_FERRETDB_METRICS_URL: `http://127.0.0.1:${ferretDbDebugPort}/debug/metrics`,
    BENCH_LOG_LEVEL: logLevel,
    BENCH_WORKER_CONCURRENCY: env.WORKER_CONCURRENCY || '64 (default)',
    BENCH_WORKERS: String(workers.length),
    // Unset: the configuration's default, which the bench reads from libs/common/src/config/env.ts.
    ...(env.SYNC_TIMEOUT_MS && { BENCH_SYNC_TIMEOUT_MS: env.SYNC_TIMEOUT_MS }),
    BENCH_SETTINGS: settings.join(' '),
    BENCH_NODE_ENV: env.NODE_ENV,
    ...(peer && { BENCH_PEER_NAME: peer, BENCH_PEER_URL: `http://127.0.0.1:${peerPort}` }),
    // For the per-process CPU figures of the load run.
    BENCH_PIDS: Object.entries({
      api,
      ...Object.fromEntries(workers.map(({ what, child }) => [what, child])),
      redis,
      ferretdb: database.ferretDb,
      postgres: database.postgres,
      fake: fake.child,
      ...(peer && { [peer]: peerProcess }),
    })
      .map(([what, child]) => `${what}:${child.pid}`)
      .join(','),
  });
  if (!interrupted) {
    reportLogProblems({
      api: logFile('api'),
      ...Object.fromEntries(workers.map(({ what }) => [what, logFile(what)])),
      'fake upstream': logFile('fake'),
    });
  }
  return code;
}

/** A bench's entry as an object, whether BENCHES names its file alone or more. */
function benchOf(name) {
  if (!Object.hasOwn(BENCHES, name)) return undefined;
  const entry = BENCHES[name];
  return typeof entry === 'string' ? { file: entry } : entry;
}

/** The first worker is `worker`, as with one; the others `worker-2`, `worker-3`, … (their logs, BENCH_PIDS). */
function workerName(index) {
  return index === 0 ? 'worker' : `worker-${index + 1}`;
}

/** Takes `--<name> <value>` (or `--<name>=<value>`) out of the bench's arguments. */
function takeOption(args, name) {
  let value;
  const rest = [];
  for (let i = 0; i < args.length; i++) {
    if (args[i] === `--${name}`) value = args[++i] ?? '';
    else if (args[i].startsWith(`--${name}=`)) value = args[i].slice(`--${name}=`.length);
    else rest.push(args[i]);
  }
  return { value, args: rest };
}

/**
 * bench:held: --requests synchronous calls held at once against an upstream that answers after --upstream-ms. All
 * of them should be in flight upstream together, so it runs enough workers, each taking as many jobs as its upstream
 * pool has connections; the fake holds each answer; and the sockets need more than the usual 1024 open files.
 * The sync wait and the upstream timeout stay at their defaults (300 s, 120 s) unless the run needs longer: a slower
 * upstream, or fewer workers (`--workers`), whose jobs then go upstream in waves.
 */
function heldSetup(args, workersWanted) {
  const requests = Number(takeOption(args, 'requests').value ?? 10_000);
  const upstreamMs = Number(takeOption(args, 'upstream-ms').value ?? 20_000);
  const workers = workersWanted ?? Math.max(1, Math.ceil(requests / UPSTREAM_CONNECTIONS_PER_WORKER));
  const waves = Math.ceil(requests / (workers * UPSTREAM_CONNECTIONS_PER_WORKER));
  return {
    workers,
    fakeArgs: ['--latency-ms', String(upstreamMs)],
    fdLimit: HELD_FD_LIMIT,
    env: {
      WORKER_CONCURRENCY: String(UPSTREAM_CONNECTIONS_PER_WORKER),
      UPSTREAM_CONNECTIONS: String(UPSTREAM_CONNECTIONS_PER_WORKER),
      ...(upstreamMs + 30_000 > 120_000 && { UPSTREAM_TIMEOUT_MS: String(upstreamMs + 30_000) }),
      ...(waves * upstreamMs + 60_000 > 300_000 && { SYNC_TIMEOUT_MS: String(waves * upstreamMs + 60_000) }),
    },
  };
}

/** The parent environment minus anything that would change routing or storage, plus the bench's settings. */
function gatewayEnv(settings) {
  const env = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (/^UPSTREAM_/.test(key) || key === 'MODELS_CONFIG' || key === 'INSTANCE_ID') continue;
    env[key] = value;
  }
  return { ...env, ...settings };
}

/** freePort() closes its socket before answering, so two calls may return the same port: ask until all differ. */
async function distinctFreePorts(count) {
  const ports = new Set();
  while (ports.size < count) ports.add(await services.freePort());
  return [...ports];
}

function startNode(script, env, logFile, fdLimit) {
  const out = fs.openSync(logFile, 'a');
  // BENCH_NODE_ARGS reach the api and the worker, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof" to profile a run.
  const nodeArgs = (process.env.BENCH_NODE_ARGS || '').split(' ').filter(Boolean);
  const child = spawnWithFdLimit(fdLimit, process.execPath, [...nodeArgs, script], {
    cwd: root,
    env,
    stdio: ['ignore', out, out],
  });
  fs.closeSync(out);
  return child;
}

/**
 * spawn(), through bash when `fdLimit` is set: the open-files limit raised to it (only the soft one, up to the hard
 * limit, where raising the hard one is not allowed), then exec, so that the child's pid is the command's own.
 */
function spawnWithFdLimit(fdLimit, command, args, options) {
  if (!fdLimit) return spawn(command, args, options);
  const raise = `ulimit -n ${fdLimit} 2>/dev/null || ulimit -Sn hard; exec "$@"`;
  return spawn('bash', ['-c', raise, 'bash', command, ...args], options);
}

/** The fake upstream prints its base URL (…/v1) once it listens. */
function startFake(port, logFile, { fakeArgs, fdLimit }) {
  const err = fs.openSync(logFile, 'a');
  const child = spawnWithFdLimit(
    fdLimit,
    process.execPath,
    ['-r', 'ts-node/register/transpile-only', 'test/fakes/openai-fake.ts', '--port', String(port), ...fakeArgs],
    {
      cwd: root,
      stdio: ['ignore', 'pipe', err],
    },
  );
  started.push(child);
  fs.closeSync(err);
  return new Promise((resolve, reject) => {
    let output = '';
    const timer = setTimeout(
      () => reject(new Error(`fake upstream did not start within ${READY_TIMEOUT_MS} ms (see ${logFile})`)),
      READY_TIMEOUT_MS,
    );
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`fake upstream exited with code ${code} (see ${logFile})`));
    });
    child.stdout.on('data', (chunk) => {
      output += chunk;
      const line = output.split('\n').find((l) => /^https?:\/\//.test(l.trim()));
      if (!line) return;
      clearTimeout(timer);
      child.removeAllListeners('exit');
      resolve({ child, baseUrl: line.trim() });
    });
  });
}

/**
 * Portkey's gateway (the @portkey-ai/gateway devDependency), headless, in production mode. It listens on all
 * interfaces and has no option for a host, so bench/peers/loopback-only.cjs holds it to loopback.
 */
function startPortkey(port, logFile) {
  const out = fs.openSync(logFile, 'a');
  const child = spawn(
    process.execPath,
    [
      '-r',
      './bench/peers/loopback-only.cjs',
      'node_modules/@portkey-ai/gateway/build/start-server.js',
      `--port=${port}`,
      '--headless',
    ],
    { cwd: root, env: peerEnv(), stdio: ['ignore', out, out] },
  );
  started.push(child);
  fs.closeSync(out);
  return child;
}

/** The parent environment without what would send Portkey elsewhere (a proxy) or turn on its Redis cache. */
function peerEnv() {
  const env = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (/^(https?_proxy|REDIS_CONNECTION_STRING|PORT|ENVIRONMENT)$/i.test(key)) continue;
    env[key] = value;
  }
  return { ...env, NODE_ENV: 'production' };
}

function isReady(port, urlPath = '/health/ready') {
  return new Promise((resolve) => {
    const req = http.get({ host: '127.0.0.1', port, path: urlPath, timeout: 2000 }, (res) => {
      res.resume();
      resolve(res.statusCode === 200);
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(false));
  });
}

function createApp(env, withLimits) {
  const limits = withLimits ? ['--daily-limit', '1000000000', '--concurrency', '10000'] : [];
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [ENTRY_POINTS.cli, 'apps:create', '--name', 'bench', ...limits, '--json'],
      { cwd: root, env },
      (error, stdout, stderr) => {
        if (error) return reject(new Error(`apps:create failed: ${error.message}\n${stderr}`));
        try {
          resolve(JSON.parse(stdout.trim().split('\n').pop()));
        } catch {
          reject(new Error(`apps:create printed no JSON: ${stdout}\n${stderr}`));
        }
      },
    );
  });
}

function runBench(file, args, fdLimit, env) {
  return new Promise((resolve) => {
    const child = spawnWithFdLimit(
      fdLimit,
      process.execPath,
      ['-r', 'ts-node/register/transpile-only', file, ...args],
      {
        cwd: root,
        env,
        stdio: 'inherit',
      },
    );
    started.push(child);
    child.once('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
}

/** Prints warn/error lines (pino level ≥ 40, or anything that is not JSON) of the services' logs. */
function reportLogProblems(files) {
  const lines = ['', 'Log check (pino level >= warn, or non-JSON output):'];
  for (const [name, file] of Object.entries(files)) {
    const text = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
    const problems = text.split('\n').filter((line) => {
      if (!line.trim()) return false;
      try {
        return (JSON.parse(line).level ?? 0) >= 40;
      } catch {
        return true;
      }
    });
    lines.push(`  ${name}: ${problems.length} line(s)`);
    for (const line of problems.slice(0, 10)) lines.push(`    ${line.length > 400 ? `${line.slice(0, 400)}…` : line}`);
    if (problems.length > 10) lines.push(`    … ${problems.length - 10} more`);
  }
  process.stdout.write(`${lines.join('\n')}\n`);
}

function tail(file, count = 20) {
  if (!fs.existsSync(file)) return '';
  return fs.readFileSync(file, 'utf8').trimEnd().split('\n').slice(-count).join('\n');
}

async function cleanup() {
  cleaningUp ??= (async () => {
    for (const child of started.reverse()) await services.stop(child);
    if (!tmpDir) return;
    if (process.env.BENCH_KEEP_TMP === '1') services.log(`kept ${tmpDir}`);
    else fs.rmSync(tmpDir, { recursive: true, force: true });
  })();
  return cleaningUp;
}

for (const signal of ['SIGINT', 'SIGTERM']) {
  process.once(signal, () => {
    interrupted = true;
    services.log(`${signal}: stopping`);
    void cleanup().finally(() => process.exit(130));
  });
}

main()
  .catch((error) => {
    process.stderr.write(`bench: ${error instanceof Error ? error.message : String(error)}\n`);
    for (const what of ['api', 'worker', 'fake', ...Object.keys(PEERS)]) {
      const lines = tmpDir ? tail(path.join(tmpDir, `${what}.log`)) : '';
      if (lines) process.stderr.write(`--- last lines of ${what}.log ---\n${lines}\n`);
    }
    return 1;
  })
  .then(async (code) => {
    await cleanup();
    process.exit(code);
  });
