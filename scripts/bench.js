'use strict';
// Runs a benchmark against a throwaway gateway: `node scripts/bench.js overhead [--duration 10 --connections 50 …]`.
// Starts Redis, FerretDB, the fake OpenAI upstream, one api and one worker on free ports under a temp dir, creates an
// application, runs bench/<name>.ts (extra arguments are passed through), then stops everything and deletes the dir.
// BENCH_KEEP_TMP=1 keeps the temp dir (and its logs) for a look afterwards; BENCH_NODE_ARGS adds node flags to the
// api and worker (e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof"). `overhead --peer portkey` also starts Portkey's
// gateway in front of the same fake upstream, for a side-by-side run.
const { spawn, execFile } = require('node:child_process');
const crypto = require('node:crypto');
const fs = require('node:fs');
const http = require('node:http');
const os = require('node:os');
const path = require('node:path');
const services = require('./services');
const { ENTRY_POINTS } = require('./processes');

const root = path.resolve(__dirname, '..');
const BENCHES = {
  overhead: 'bench/overhead.ts',
  stages: 'bench/stages.ts',
  'image-memory': 'bench/image-memory.ts',
};
const READY_TIMEOUT_MS = 60_000;
/** Peer gateways the overhead bench can measure beside this one: `--peer <name>`. */
const PEERS = { portkey: startPortkey };

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
  const { peer, args: extraArgs } = takePeer(rest.filter((arg) => arg !== '--with-limits'));
  if (!BENCHES[name] || (peer !== undefined && (name !== 'overhead' || !PEERS[peer]))) {
    process.stderr.write(
      `Usage: node scripts/bench.js <${Object.keys(BENCHES).join('|')}> [bench options]\n` +
        `       node scripts/bench.js overhead --peer <${Object.keys(PEERS).join('|')}> [bench options]\n`,
    );
    return 2;
  }
  services.ensureNodeModules(root);
  services.ensureBuilt(root);

  tmpDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-bench-'));
  const logFile = (what) => path.join(tmpDir, `${what}.log`);
  fs.chmodSync(tmpDir, 0o711);
  const [redisPort, mongoPort, postgresPort, fakePort, apiPort, workerPort, peerPort] = await distinctFreePorts(7);
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
  });
  started.push(database.postgres, database.ferretDb);
  const fake = await startFake(fakePort, logFile('fake'));
  const peerProcess = peer && PEERS[peer](peerPort, logFile(peer));

  const logLevel = process.env.LOG_LEVEL || 'info';
  const env = gatewayEnv({
    REDIS_URL: `redis://127.0.0.1:${redisPort}`,
    MONGODB_URI: `mongodb://127.0.0.1:${mongoPort}/bench`,
    // A fresh key per run: the database is thrown away with it.
    MASTER_KEY: crypto.randomBytes(32).toString('hex'),
    API_HOST: '127.0.0.1',
    API_PORT: String(apiPort),
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
  });

  const api = startNode(ENTRY_POINTS.api, env, logFile('api'));
  started.push(api);
  const worker = startNode(ENTRY_POINTS.worker, env, logFile('worker'));
  started.push(worker);
  await Promise.all([
    services.waitFor(() => isReady(apiPort), `api on port ${apiPort}`, api, READY_TIMEOUT_MS),
    services.waitFor(() => isReady(workerPort), `worker on port ${workerPort}`, worker, READY_TIMEOUT_MS),
    peerProcess &&
      services.waitFor(() => isReady(peerPort, '/'), `${peer} on port ${peerPort}`, peerProcess, READY_TIMEOUT_MS),
  ]);
  services.log(
    `api ${apiPort}, worker ${workerPort}, redis ${redisPort}, ferretdb ${mongoPort}, fake upstream ${fake.baseUrl}` +
      (peer ? `, ${peer} ${peerPort}` : ''),
  );

  const app = await createApp(env, withLimits);
  services.log(
    `application limits: ${withLimits ? 'daily 1000000000, concurrency 10000 (checked on every request)' : 'none'}`,
  );
  const code = await runBench(BENCHES[name], extraArgs, {
    ...process.env,
    BENCH_API_URL: `http://127.0.0.1:${apiPort}`,
    BENCH_WORKER_URL: `http://127.0.0.1:${workerPort}`,
    BENCH_UPSTREAM_URL: fake.baseUrl,
    BENCH_API_KEY: app.apiKey,
    BENCH_MONGODB_URI: env.MONGODB_URI,
    BENCH_REDIS_URL: env.REDIS_URL,
    BENCH_LOG_LEVEL: logLevel,
    BENCH_WORKER_CONCURRENCY: env.WORKER_CONCURRENCY || '64 (default)',
    BENCH_NODE_ENV: env.NODE_ENV,
    ...(peer && { BENCH_PEER_NAME: peer, BENCH_PEER_URL: `http://127.0.0.1:${peerPort}` }),
    // For the per-process CPU figures of the load run.
    BENCH_PIDS: Object.entries({
      api,
      worker,
      redis,
      ferretdb: database.ferretDb,
      postgres: database.postgres,
      fake: fake.child,
      ...(peer && { [peer]: peerProcess }),
    })
      .map(([what, child]) => `${what}:${child.pid}`)
      .join(','),
  });
  if (!interrupted)
    reportLogProblems({ api: logFile('api'), worker: logFile('worker'), 'fake upstream': logFile('fake') });
  return code;
}

/** Takes `--peer <name>` (or `--peer=<name>`) out of the bench's arguments. */
function takePeer(args) {
  let peer;
  const rest = [];
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--peer') peer = args[++i] ?? '';
    else if (args[i].startsWith('--peer=')) peer = args[i].slice('--peer='.length);
    else rest.push(args[i]);
  }
  return { peer, args: rest };
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

function startNode(script, env, logFile, args = []) {
  const out = fs.openSync(logFile, 'a');
  // BENCH_NODE_ARGS reach the api and the worker, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof" to profile a run.
  const nodeArgs = (process.env.BENCH_NODE_ARGS || '').split(' ').filter(Boolean);
  const child = spawn(process.execPath, [...nodeArgs, script, ...args], {
    cwd: root,
    env,
    stdio: ['ignore', out, out],
  });
  fs.closeSync(out);
  return child;
}

/** The fake upstream prints its base URL (…/v1) once it listens. */
function startFake(port, logFile) {
  const err = fs.openSync(logFile, 'a');
  const child = spawn(
    process.execPath,
    ['-r', 'ts-node/register/transpile-only', 'test/fakes/openai-fake.ts', '--port', String(port)],
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

function runBench(file, args, env) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['-r', 'ts-node/register/transpile-only', file, ...args], {
      cwd: root,
      env,
      stdio: 'inherit',
    });
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
