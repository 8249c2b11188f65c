'use strict';
// Where each gateway process starts once built, and the ports a gateway uses unless told otherwise: the one place
// the scripts, package.json and the test helpers take them from. The ports are the configuration's own defaults
// (libs/common/src/config/default-ports.json), so `npm start` puts the embedded Redis and database where the api and
// the worker look for them.
//
// `node scripts/processes.js <api|worker|cli> [arguments]` runs a built process in this one (package.json's
// start:api and start:worker), with the arguments as its own.
const path = require('node:path');
const DEFAULT_PORTS = require('../libs/common/src/config/default-ports.json');
// SHUTDOWN_TIMEOUT_MS's default and the exit code of a forced shutdown (libs/common/src/lifecycle).
const SHUTDOWN_DEFAULTS = require('../libs/common/src/config/shutdown-defaults.json');

const root = path.resolve(__dirname, '..');

/** The Nest CLI builds apps/<app> into dist/apps/<app>, keeping the source tree under it. */
const ENTRY_POINTS = Object.freeze(
  Object.fromEntries(
    ['api', 'worker', 'cli'].map((app) => [app, path.join(root, 'dist', 'apps', app, 'apps', app, 'src', 'main.js')]),
  ),
);

/** A Redis the gateway is pointed at (one server, Sentinel or Cluster): `npm start` then embeds none. */
const EXTERNAL_REDIS_SETTINGS = Object.freeze(['REDIS_URL', 'REDIS_SENTINELS', 'REDIS_CLUSTER_NODES']);
const usesExternalRedis = (env) => EXTERNAL_REDIS_SETTINGS.some((name) => Boolean(env[name]));

module.exports = { ENTRY_POINTS, DEFAULT_PORTS, SHUTDOWN_DEFAULTS, usesExternalRedis };

if (require.main === module) {
  const [app] = process.argv.splice(2, 1);
  if (!Object.hasOwn(ENTRY_POINTS, app)) {
    process.stderr.write(`Usage: node scripts/processes.js <${Object.keys(ENTRY_POINTS).join('|')}> [arguments]\n`);
    process.exit(2);
  }
  require(ENTRY_POINTS[app]);
}
