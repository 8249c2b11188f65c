'use strict';
// `npm run gw -- <command>`: the operator CLI, against the embedded default unless REDIS_URL / MONGODB_URI are set.
const { spawnSync } = require('node:child_process');
const path = require('node:path');
const services = require('./services');
const { DEFAULT_PORTS, ENTRY_POINTS } = require('./processes');

const root = path.resolve(__dirname, '..');
services.ensureNodeModules(root);
services.ensureBuilt(root);
const env = {
  ...process.env,
  MASTER_KEY: services.ensureMasterKey(root),
  REDIS_URL: process.env.REDIS_URL || `redis://127.0.0.1:${DEFAULT_PORTS.redis}`,
  MONGODB_URI: process.env.MONGODB_URI || `mongodb://127.0.0.1:${DEFAULT_PORTS.mongodb}/gateway`,
};
const result = spawnSync(process.execPath, [ENTRY_POINTS.cli, ...process.argv.slice(2)], {
  cwd: root,
  env,
  stdio: 'inherit',
});
process.exit(result.status ?? 1);
