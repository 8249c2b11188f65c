'use strict';
// `npm start`: installs what is missing, starts the embedded Redis and database (FerretDB over PostgreSQL) under .data/
// when no Redis (REDIS_URL, REDIS_SENTINELS, REDIS_CLUSTER_NODES) or MONGODB_URI is set, then the api (API_PORT) and
// one worker (`--workers N`: N of them). Each process it started is restarted when it crashes (scripts/supervisor.js).
// Ctrl-C stops everything it started.
//
// EMBEDDED_DATA_DIR and EMBEDDED_{REDIS,MONGODB,POSTGRES}_PORT move the embedded servers' data and ports (a second
// stack on one machine, the supervision test).
const { spawn } = require('node:child_process');
const path = require('node:path');
const services = require('./services');
const { DEFAULT_PORTS, ENTRY_POINTS, SHUTDOWN_DEFAULTS, usesExternalRedis } = require('./processes');
const { ensureModels } = require('./models');
const { supervise, workerPorts, parseWorkerCount } = require('./supervisor');

const root = path.resolve(__dirname, '..');
const EMBEDDED_REDIS_PORT = Number(process.env.EMBEDDED_REDIS_PORT || DEFAULT_PORTS.redis);
const EMBEDDED_MONGO_PORT = Number(process.env.EMBEDDED_MONGODB_PORT || DEFAULT_PORTS.mongodb);
const EMBEDDED_POSTGRES_PORT = Number(process.env.EMBEDDED_POSTGRES_PORT || DEFAULT_PORTS.postgres);
const DATA_DIR = path.resolve(process.env.EMBEDDED_DATA_DIR || path.join(root, '.data'));
// The api and the worker end themselves within SHUTDOWN_TIMEOUT_MS of the signal; SIGKILL is for one stuck past that.
const APP_STOP_GRACE_MS = Number(process.env.SHUTDOWN_TIMEOUT_MS || SHUTDOWN_DEFAULTS.timeoutMs) + 5_000;

const supervisorLog = (message) => process.stderr.write(`[supervisor] ${message}\n`);

/** Supervises `start`, logging its first pid; resolves once it is usable. */
async function startSupervised(name, start, stopChild = (child) => services.stop(child)) {
  const supervised = supervise({ name, start, stopChild, log: supervisorLog });
  const child = await supervised.begin();
  supervisorLog(`${name} started (pid ${child.pid})`);
  return supervised;
}

/**
 * The embedded Redis (AOF on) unless REDIS_URL, REDIS_SENTINELS or REDIS_CLUSTER_NODES is set or one already answers
 * on its port; null when not ours.
 */
async function startEmbeddedRedis(env) {
  if (usesExternalRedis(process.env)) return null;
  env.REDIS_URL = `redis://127.0.0.1:${EMBEDDED_REDIS_PORT}`;
  if (await services.redisAnswers(EMBEDDED_REDIS_PORT)) {
    services.log(`reusing the Redis already on port ${EMBEDDED_REDIS_PORT}`);
    return null;
  }
  // A restart reuses the port and the data directory: the api and the workers reconnect to the same data.
  return startSupervised('redis', () =>
    services.startRedis({
      port: EMBEDDED_REDIS_PORT,
      dir: path.join(DATA_DIR, 'redis'),
      persist: true,
      logFile: path.join(DATA_DIR, 'redis.log'),
    }),
  );
}

/**
 * The embedded database unless MONGODB_URI is set or one already answers on its port: PostgreSQL, then FerretDB in
 * front of it, each supervised on its own (FerretDB reconnects to a restarted PostgreSQL by itself). [] when not ours.
 */
async function startEmbeddedDatabase(env) {
  if (process.env.MONGODB_URI) return [];
  env.MONGODB_URI = `mongodb://127.0.0.1:${EMBEDDED_MONGO_PORT}/gateway`;
  if (await services.portAccepts(EMBEDDED_MONGO_PORT)) {
    services.log(`reusing the database already on port ${EMBEDDED_MONGO_PORT}`);
    return [];
  }
  let postgresUrl;
  const postgres = await startSupervised('postgresql', async () => {
    const started = await services.startPostgres({
      port: EMBEDDED_POSTGRES_PORT,
      dir: path.join(DATA_DIR, 'postgres'),
      logFile: path.join(DATA_DIR, 'postgres.log'),
    });
    postgresUrl = started.url;
    return started.child;
  });
  const ferretDb = await startSupervised('ferretdb', () =>
    services.startFerretDb({
      port: EMBEDDED_MONGO_PORT,
      postgresUrl,
      stateDir: path.join(DATA_DIR, 'ferretdb'),
      logFile: path.join(DATA_DIR, 'ferretdb.log'),
    }),
  );
  return [ferretDb, postgres];
}

/** The api and `workerCount` workers, each on ports of its own, supervised. */
async function startGateway(env, workerCount) {
  const apiPorts = [Number(env.API_PORT || DEFAULT_PORTS.api), Number(env.METRICS_PORT || DEFAULT_PORTS.metrics)];
  const ports = workerPorts(Number(env.WORKER_PORT || DEFAULT_PORTS.worker), workerCount, apiPorts);
  const stopApp = (child) => services.stop(child, 'SIGTERM', APP_STOP_GRACE_MS);
  const launch = (app, extraEnv) => async () =>
    spawn(process.execPath, [ENTRY_POINTS[app]], { cwd: root, env: { ...env, ...extraEnv }, stdio: 'inherit' });
  const api = await startSupervised('api', launch('api', {}), stopApp);
  const workers = await Promise.all(
    ports.map((port, i) =>
      startSupervised(`worker-${i + 1}`, launch('worker', { WORKER_PORT: String(port) }), stopApp),
    ),
  );
  return { apps: [api, ...workers], ports };
}

async function main() {
  const workerCount = parseWorkerCount(process.argv.slice(2));
  services.ensureNodeModules(root);
  services.ensureBuilt(root);
  if (process.env.LOCAL_MODELS !== 'off') await ensureModels({ root });
  // The local image engine's captions in Chinese, Japanese and Korean need a font with their glyphs.
  services.ensureCjkFont();
  const env = { ...process.env, MASTER_KEY: services.ensureMasterKey(root) };
  const redis = await startEmbeddedRedis(env);
  const database = await startEmbeddedDatabase(env);
  const { apps, ports } = await startGateway(env, workerCount);

  const port = env.API_PORT || DEFAULT_PORTS.api;
  const workers = workerCount === 1 ? 'one worker' : `${workerCount} workers`;
  services.log(`api on http://127.0.0.1:${port}, ${workers}; logs are JSON on stdout`);
  const workerHost = env.WORKER_HOST || '127.0.0.1';
  services.log(
    `/metrics and /health/ready: api on http://${env.METRICS_HOST || '127.0.0.1'}:${env.METRICS_PORT || DEFAULT_PORTS.metrics}, ` +
      `${workerCount === 1 ? 'worker' : 'workers'} on ${ports.map((p) => `http://${workerHost}:${p}`).join(', ')}`,
  );
  services.log(`console: http://127.0.0.1:${port}/console`);
  printOperatorSetup(env, port);
  services.log('create an application and its API key with:  npm run gw -- apps:create --name demo');
  services.log(
    `then: curl http://127.0.0.1:${port}/v1/embeddings -H "Authorization: Bearer <API Key>" -H "Content-Type: application/json" -d '{"model":"text-embedding-v4","input":"hello"}'`,
  );

  let stopping = false;
  // The gateway first (it drains into Redis and the database), then Redis and FerretDB, then PostgreSQL under it.
  const shutdown = async () => {
    stopping = true;
    const lastApps = apps.map((app) => app.child()).filter(Boolean);
    await Promise.all(apps.map((app) => app.stop()));
    const [ferretDb, postgres] = database;
    await Promise.all([redis?.stop(), ferretDb?.stop()]);
    await postgres?.stop();
    const forced = lastApps.some(
      (child) => child.exitCode === SHUTDOWN_DEFAULTS.forcedExitCode || child.signalCode === 'SIGKILL',
    );
    process.exit(forced ? SHUTDOWN_DEFAULTS.forcedExitCode : 0);
  };
  // A signal while stopping is passed on: an api or worker still closing takes it as the order to exit at once.
  const onSignal = () =>
    stopping
      ? apps.forEach((app) => app.child()?.kill('SIGTERM'))
      : void shutdown().catch((error) => {
          process.stderr.write(`npm start: stopping failed: ${error.stack || error}\n`);
          process.exit(1);
        });
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
}

/**
 * While the gateway has no operator, a one-time link whose sign-up creates one (gw operators:setup-link): no sign-up
 * becomes the operator by being first. It runs beside the api and the worker, which it does not wait for.
 */
function printOperatorSetup(env, port) {
  const origin = env.PUBLIC_BASE_URL || `http://127.0.0.1:${port}`;
  const cli = spawn(process.execPath, [ENTRY_POINTS.cli, 'operators:setup-link', '--if-none', '--url', origin], {
    cwd: root,
    env,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let output = '';
  cli.stdout.on('data', (chunk) => (output += chunk));
  cli.on('exit', (code) => {
    if (code !== 0) services.log(`no operator setup link (exit code ${code}); run: npm run gw -- operators:setup-link`);
    else for (const line of output.trim().split('\n').filter(Boolean)) services.log(line);
  });
}

main().catch((error) => {
  process.stderr.write(`npm start: ${error.stack || error}\n`);
  process.exit(1);
});
