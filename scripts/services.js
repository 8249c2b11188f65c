'use strict';
// Installs and runs the embedded dependencies (Redis, FerretDB) for `npm start`, `npm test` and the benchmarks.
// Plain Node with built-ins only: it runs before `npm install` on a fresh machine.
const { spawn, spawnSync, execFileSync } = require('node:child_process');
const fs = require('node:fs');
const net = require('node:net');
const os = require('node:os');
const path = require('node:path');

const FERRETDB_VERSION = 'v1.24.2';
const GO_TOOLCHAIN = 'go1.24.4';
const CACHE_DIR = process.env.GATEWAY_CACHE_DIR || path.join(os.homedir(), '.cache', 'model-gateway');

function log(message) {
  process.stderr.write(`[services] ${message}\n`);
}

function which(command) {
  const found = spawnSync('sh', ['-c', `command -v ${command}`], { encoding: 'utf8' });
  return found.status === 0 ? found.stdout.trim() : null;
}

function run(command, args, options = {}) {
  const result = spawnSync(command, args, { stdio: 'inherit', ...options });
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} failed with exit code ${result.status}`);
}

function aptInstall(packages) {
  if (!which('apt-get')) throw new Error(`cannot install ${packages.join(', ')}: no apt-get on this machine; install them and retry`);
  const sudo = process.getuid && process.getuid() === 0 ? [] : ['sudo'];
  log(`installing ${packages.join(', ')} with apt-get`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  run(sudo[0] || 'apt-get', [...sudo.slice(1), ...(sudo.length ? ['apt-get'] : []), 'update', '-qq'], { env });
  run(sudo[0] || 'apt-get', [...sudo.slice(1), ...(sudo.length ? ['apt-get'] : []), 'install', '-y', '-qq', ...packages], { env });
}

function ensureRedis() {
  const found = which('redis-server');
  if (found) return found;
  aptInstall(['redis-server']);
  return which('redis-server') || '/usr/bin/redis-server';
}

/** A Go toolchain: the machine's, or the official one from the Go module proxy (golang.org/toolchain). */
function ensureGo() {
  const found = which('go');
  if (found) return found;
  const goRoot = path.join(CACHE_DIR, `golang.org-toolchain@v0.0.1-${GO_TOOLCHAIN}.linux-amd64`);
  const goBin = path.join(goRoot, 'bin', 'go');
  if (fs.existsSync(goBin)) return goBin;
  fs.mkdirSync(CACHE_DIR, { recursive: true });
  const zip = path.join(CACHE_DIR, `${GO_TOOLCHAIN}.zip`);
  log(`downloading the Go toolchain ${GO_TOOLCHAIN} from the Go module proxy`);
  run('curl', ['-fsSL', '-o', zip, `https://proxy.golang.org/golang.org/toolchain/@v/v0.0.1-${GO_TOOLCHAIN}.linux-amd64.zip`]);
  const extractTo = path.join(CACHE_DIR, 'go-extract');
  fs.rmSync(extractTo, { recursive: true, force: true });
  run('python3', ['-m', 'zipfile', '-e', zip, extractTo]);
  fs.renameSync(path.join(extractTo, `golang.org/toolchain@v0.0.1-${GO_TOOLCHAIN}.linux-amd64`), goRoot);
  fs.chmodSync(goBin, 0o755);
  for (const tool of fs.readdirSync(path.join(goRoot, 'pkg', 'tool', 'linux_amd64'))) {
    fs.chmodSync(path.join(goRoot, 'pkg', 'tool', 'linux_amd64', tool), 0o755);
  }
  fs.rmSync(zip, { force: true });
  return goBin;
}

/**
 * FerretDB 1.24 built from the Go module proxy and cached. Not `go install …@v1.24.2`: the proxy refuses the
 * module's version list that `go install` reads for its deprecation check, and a build from the module cache
 * needs build/version/version.txt, which FerretDB generates at release time (their `task gen-version`).
 */
function ensureFerretDb() {
  if (process.env.FERRETDB_BIN) return process.env.FERRETDB_BIN;
  const cached = path.join(CACHE_DIR, `ferretdb-${FERRETDB_VERSION}`);
  if (fs.existsSync(cached)) return cached;
  const go = ensureGo();
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'ferretdb-build-'));
  const env = { ...process.env, GOFLAGS: '-mod=mod', GOTOOLCHAIN: 'local', PATH: `${path.dirname(go)}:${process.env.PATH}` };
  log(`building FerretDB ${FERRETDB_VERSION} (first run only; cached in ${CACHE_DIR})`);
  fs.writeFileSync(path.join(work, 'go.mod'), `module ferretdb-build\n\ngo 1.22\n\nrequire github.com/FerretDB/FerretDB ${FERRETDB_VERSION}\n`);
  const info = JSON.parse(execFileSync(go, ['mod', 'download', '-json', `github.com/FerretDB/FerretDB@${FERRETDB_VERSION}`], { cwd: work, env, encoding: 'utf8' }));
  const source = path.join(work, 'src');
  fs.cpSync(info.Dir, source, { recursive: true });
  run('chmod', ['-R', 'u+w', source]);
  fs.writeFileSync(path.join(source, 'build', 'version', 'version.txt'), `${FERRETDB_VERSION}\n`);
  fs.mkdirSync(CACHE_DIR, { recursive: true });
  run(go, ['build', '-o', `${cached}.tmp`, './cmd/ferretdb'], { cwd: source, env });
  fs.renameSync(`${cached}.tmp`, cached);
  fs.rmSync(work, { recursive: true, force: true });
  return cached;
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** Resolves with the first line the server answers to `probe`, or null when nothing listens. */
function ask(port, probe, timeoutMs = 500) {
  return new Promise((resolve) => {
    const socket = net.connect({ port, host: '127.0.0.1' });
    const done = (value) => { socket.destroy(); resolve(value); };
    socket.setTimeout(timeoutMs, () => done(null));
    socket.on('error', () => done(null));
    socket.on('connect', () => (probe ? socket.write(probe) : done('')));
    socket.on('data', (data) => done(data.toString()));
  });
}

async function waitFor(check, what, child, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child && child.exitCode !== null) throw new Error(`${what} exited with code ${child.exitCode}`);
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${what} did not come up within ${timeoutMs} ms`);
}

const redisAnswers = async (port) => ((await ask(port, 'PING\r\n')) || '').startsWith('+PONG');
const portAccepts = async (port) => (await ask(port, null)) !== null;

/** Starts redis-server on loopback; `persist` turns on AOF as production BullMQ needs. */
async function startRedis({ port, dir, persist = false, logFile }) {
  const bin = ensureRedis();
  fs.mkdirSync(dir, { recursive: true });
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--maxmemory-policy', 'noeviction',
    '--appendonly', persist ? 'yes' : 'no', '--protected-mode', 'yes'];
  const child = spawnLogged(bin, args, logFile);
  await waitFor(() => redisAnswers(port), `redis-server on port ${port}`, child);
  return child;
}

async function startFerretDb({ port, dir, logFile }) {
  const bin = ensureFerretDb();
  fs.mkdirSync(dir, { recursive: true });
  const args = ['--handler=sqlite', `--sqlite-url=file:${dir.endsWith('/') ? dir : `${dir}/`}`, `--listen-addr=127.0.0.1:${port}`,
    '--debug-addr=-', '--telemetry=disable', '--log-level=warn'];
  const child = spawnLogged(bin, args, logFile);
  await waitFor(() => portAccepts(port), `FerretDB on port ${port}`, child);
  return child;
}

function spawnLogged(bin, args, logFile) {
  const out = logFile ? fs.openSync(logFile, 'a') : 'ignore';
  const child = spawn(bin, args, { stdio: ['ignore', out, out] });
  return child;
}

function stop(child, signal = 'SIGTERM') {
  if (!child || child.exitCode !== null || child.signalCode) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
    child.once('exit', () => { clearTimeout(timer); resolve(); });
    child.kill(signal);
  });
}

/** Installs npm packages when node_modules is missing or older than the lock file. */
function ensureNodeModules(root) {
  const marker = path.join(root, 'node_modules', '.package-lock.json');
  const lock = path.join(root, 'package-lock.json');
  if (fs.existsSync(marker) && fs.statSync(marker).mtimeMs >= fs.statSync(lock).mtimeMs) return;
  log('installing npm packages');
  // Not `npm ci`: npm 11 rejects this lock over msgpackr-extract's optional per-platform packages; install from the lock instead.
  run('npm', ['install', '--no-audit', '--no-fund'], { cwd: root });
}

function newestMtime(dir) {
  let newest = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name === 'dist') continue;
    const full = path.join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(full) : fs.statSync(full).mtimeMs);
  }
  return newest;
}

/** Builds api, worker and cli when a source file is newer than the last build. */
function ensureBuilt(root) {
  const stamp = path.join(root, 'dist', '.built');
  const sources = Math.max(newestMtime(path.join(root, 'apps')), newestMtime(path.join(root, 'libs')));
  if (fs.existsSync(stamp) && fs.statSync(stamp).mtimeMs >= sources) return;
  log('building api, worker and cli');
  run('node', [path.join(root, 'scripts', 'build.js')], { cwd: root });
}

/** MASTER_KEY for the embedded default: generated once and kept under .data/ (mode 600). */
function ensureMasterKey(root) {
  if (process.env.MASTER_KEY) return process.env.MASTER_KEY;
  const file = path.join(root, '.data', 'master.key');
  if (!fs.existsSync(file)) {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, require('node:crypto').randomBytes(32).toString('hex'), { mode: 0o600 });
  }
  return fs.readFileSync(file, 'utf8').trim();
}

module.exports = {
  CACHE_DIR, ensureRedis, ensureFerretDb, ensureNodeModules, ensureBuilt, ensureMasterKey,
  startRedis, startFerretDb, freePort, stop, redisAnswers, portAccepts, waitFor, log,
};
