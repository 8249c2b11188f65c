'use strict';
// `npm start`: installs what is missing, starts the embedded Redis and database (FerretDB over PostgreSQL) under .data/
// when REDIS_URL / MONGODB_URI are not set, then the api (API_PORT) and one worker. Ctrl-C stops everything it started.
const { spawn } = require('node:child_process');
const path = require('node:path');
const services = require('./services');
const { DEFAULT_PORTS, ENTRY_POINTS, SHUTDOWN_DEFAULTS } = require('./processes');
const { ensureModels } = require('./models');

const root = path.resolve(__dirname, '..');
const EMBEDDED_REDIS_PORT = DEFAULT_PORTS.redis;
const EMBEDDED_MONGO_PORT = DEFAULT_PORTS.mongodb;
const EMBEDDED_POSTGRES_PORT = DEFAULT_PORTS.postgres;
// The api and the worker end themselves within SHUTDOWN_TIMEOUT_MS of the signal; SIGKILL is for one stuck past that.
const APP_STOP_GRACE_MS = Number(process.env.SHUTDOWN_TIMEOUT_MS || SHUTDOWN_DEFAULTS.timeoutMs) + 5_000;

async function main() {
  services.ensureNodeModules(root);
  services.ensureBuilt(root);
  if (process.env.LOCAL_MODELS !== 'off') await ensureModels({ root });
  const env = { ...process.env, MASTER_KEY: services.ensureMasterKey(root) };
  const started = [];
  let database;

  if (!process.env.REDIS_URL) {
    env.REDIS_URL = `redis://127.0.0.1:${EMBEDDED_REDIS_PORT}`;
    if (await services.redisAnswers(EMBEDDED_REDIS_PORT))
      services.log(`reusing the Redis already on port ${EMBEDDED_REDIS_PORT}`);
    else
      started.push(
        await services.startRedis({
          port: EMBEDDED_REDIS_PORT,
          dir: path.join(root, '.data', 'redis'),
          persist: true,
          logFile: path.join(root, '.data', 'redis.log'),
        }),
      );
  }
  if (!process.env.MONGODB_URI) {
    env.MONGODB_URI = `mongodb://127.0.0.1:${EMBEDDED_MONGO_PORT}/gateway`;
    if (await services.portAccepts(EMBEDDED_MONGO_PORT))
      services.log(`reusing the database already on port ${EMBEDDED_MONGO_PORT}`);
    else
      database = await services.startDatabase({
        port: EMBEDDED_MONGO_PORT,
        postgresPort: EMBEDDED_POSTGRES_PORT,
        dir: path.join(root, '.data'),
        logDir: path.join(root, '.data'),
      });
  }

  const apps = ['api', 'worker'].map((app) =>
    spawn(process.execPath, [ENTRY_POINTS[app]], { cwd: root, env, stdio: 'inherit' }),
  );
  const port = env.API_PORT || DEFAULT_PORTS.api;
  services.log(`api on http://127.0.0.1:${port}, one worker; logs are JSON on stdout`);
  services.log(
    `/metrics and /health/ready: api on http://${env.METRICS_HOST || '127.0.0.1'}:${env.METRICS_PORT || DEFAULT_PORTS.metrics}, ` +
      `worker on http://${env.WORKER_HOST || '127.0.0.1'}:${env.WORKER_PORT || DEFAULT_PORTS.worker}`,
  );
  services.log(`console: http://127.0.0.1:${port}/console`);
  printOperatorSetup(env, port);
  services.log('create an application and its API key with:  npm run gw -- apps:create --name demo');
  services.log(
    `then: curl http://127.0.0.1:${port}/v1/embeddings -H "Authorization: Bearer <API Key>" -H "Content-Type: application/json" -d '{"model":"text-embedding-v4","input":"hello"}'`,
  );

  let stopping = false;
  const running = () => apps.filter((child) => child.exitCode === null && child.signalCode === null);
  const shutdown = async (code) => {
    stopping = true;
    await Promise.all(apps.map((child) => services.stop(child, 'SIGTERM', APP_STOP_GRACE_MS)));
    await Promise.all([...started.map((child) => services.stop(child)), services.stopDatabase(database)]);
    const forced = apps.some(
      (child) => child.exitCode === SHUTDOWN_DEFAULTS.forcedExitCode || child.signalCode === 'SIGKILL',
    );
    process.exit(code || (forced ? SHUTDOWN_DEFAULTS.forcedExitCode : 0));
  };
  // A signal while stopping is passed on: an api or worker still closing takes it as the order to exit at once.
  const onSignal = () => (stopping ? running().forEach((child) => child.kill('SIGTERM')) : void shutdown(0));
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  apps.forEach((child) =>
    child.on('exit', (code) => {
      if (!stopping) {
        services.log(`a gateway process exited with code ${code}; stopping`);
        void shutdown(code || 1);
      }
    }),
  );
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
