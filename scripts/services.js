'use strict';
// Installs and runs the embedded dependencies (Redis, and FerretDB over PostgreSQL) for `npm start`, `npm test` and
// the benchmarks. Plain Node with built-ins only: it runs before `npm install` on a fresh machine.
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

/** `recommends: false` leaves out what a package only recommends (prometheus: a node exporter daemon). */
function aptInstall(packages, { recommends = true } = {}) {
  if (!which('apt-get'))
    throw new Error(`cannot install ${packages.join(', ')}: no apt-get on this machine; install them and retry`);
  const sudo = process.getuid && process.getuid() === 0 ? [] : ['sudo'];
  log(`installing ${packages.join(', ')} with apt-get`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  run(sudo[0] || 'apt-get', [...sudo.slice(1), ...(sudo.length ? ['apt-get'] : []), 'update', '-qq'], { env });
  run(
    sudo[0] || 'apt-get',
    [
      ...sudo.slice(1),
      ...(sudo.length ? ['apt-get'] : []),
      'install',
      '-y',
      '-qq',
      ...(recommends ? [] : ['--no-install-recommends']),
      ...packages,
    ],
    { env },
  );
}

function ensureRedis() {
  const found = which('redis-server');
  if (found) return found;
  aptInstall(['redis-server']);
  return which('redis-server') || '/usr/bin/redis-server';
}

/**
 * Debian's Prometheus for the alerting-rule tests (promtool) and the dashboard suite (a real server scraping a live
 * gateway). Returns both commands.
 */
function ensurePrometheus() {
  if (!which('promtool') || !which('prometheus')) aptInstall(['prometheus'], { recommends: false });
  return {
    prometheus: which('prometheus') || '/usr/bin/prometheus',
    promtool: which('promtool') || '/usr/bin/promtool',
  };
}

/**
 * The CJK font the local image engine draws Chinese, Japanese and Korean captions with (through fontconfig, which
 * sharp's Pango reads), and the console's browser suite its Chinese pages: WenQuanYi Micro Hei, 1.6 MB against
 * Noto Sans CJK's 57 MB, covering GBK, Big5, kana and Hangul. fontconfig brings /etc/fonts/fonts.conf, without which
 * no font is found at all. None when fontconfig already knows a font with Chinese glyphs.
 */
const CJK_FONT_PACKAGES = ['fontconfig', 'fonts-wqy-microhei'];
function missingCjkFontPackages() {
  if (!which('fc-list')) return CJK_FONT_PACKAGES;
  const chinese = spawnSync('fc-list', [':lang=zh', 'family'], { encoding: 'utf8' });
  return chinese.status === 0 && chinese.stdout.trim() !== '' ? [] : CJK_FONT_PACKAGES;
}

/** Installs the CJK font when no Chinese font is installed; without apt-get, says so and goes on (captions draw boxes). */
function ensureCjkFont() {
  const missing = missingCjkFontPackages();
  if (missing.length === 0) return;
  try {
    aptInstall(missing);
  } catch (error) {
    log(`${error.message}: without a CJK font, Chinese, Japanese and Korean captions are drawn as boxes`);
  }
}

/**
 * Debian's Chromium for the console's browser suite, with the CJK font so the Chinese pages render (and are
 * screenshotted) as a reader sees them.
 */
function ensureChromium() {
  const missing = [...(fs.existsSync('/usr/bin/chromium') ? [] : ['chromium']), ...missingCjkFontPackages()];
  if (missing.length > 0) aptInstall(missing);
  return '/usr/bin/chromium';
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
  run('curl', [
    '-fsSL',
    '-o',
    zip,
    `https://proxy.golang.org/golang.org/toolchain/@v/v0.0.1-${GO_TOOLCHAIN}.linux-amd64.zip`,
  ]);
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
  const cached = path.join(CACHE_DIR, `ferretdb-${FERRETDB_VERSION}-${FERRETDB_PATCH_LEVEL}`);
  if (fs.existsSync(cached)) return cached;
  const go = ensureGo();
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'ferretdb-build-'));
  const env = {
    ...process.env,
    GOFLAGS: '-mod=mod',
    GOTOOLCHAIN: 'local',
    PATH: `${path.dirname(go)}:${process.env.PATH}`,
  };
  log(`building FerretDB ${FERRETDB_VERSION} (first run only; cached in ${CACHE_DIR})`);
  fs.writeFileSync(
    path.join(work, 'go.mod'),
    `module ferretdb-build\n\ngo 1.22\n\nrequire github.com/FerretDB/FerretDB ${FERRETDB_VERSION}\n`,
  );
  const info = JSON.parse(
    execFileSync(go, ['mod', 'download', '-json', `github.com/FerretDB/FerretDB@${FERRETDB_VERSION}`], {
      cwd: work,
      env,
      encoding: 'utf8',
    }),
  );
  const source = path.join(work, 'src');
  fs.cpSync(info.Dir, source, { recursive: true });
  run('chmod', ['-R', 'u+w', source]);
  fs.writeFileSync(path.join(source, 'build', 'version', 'version.txt'), `${FERRETDB_VERSION}\n`);
  patchFerretDb(source);
  fs.mkdirSync(CACHE_DIR, { recursive: true });
  run(go, ['build', '-o', `${cached}.tmp`, './cmd/ferretdb'], { cwd: source, env });
  fs.renameSync(`${cached}.tmp`, cached);
  fs.rmSync(work, { recursive: true, force: true });
  return cached;
}

/** Bumped with every change to FERRETDB_PATCHES, so a cached binary built without it is not used. */
const FERRETDB_PATCH_LEVEL = 'p1';

/**
 * Changes made to FerretDB's source before it is built, each for a measured reason.
 *
 * Resource tracking only in debug builds: 1.24 registers every document iterator it creates in a pprof profile,
 * which records the caller's stack each time. Profiling a listing read (25 documents per query) put a fifth of
 * FerretDB's CPU in those stack walks, for a leak check whose report (a finalizer's panic message) only debug builds
 * fill in.
 */
const FERRETDB_PATCHES = [
  {
    file: 'internal/util/resource/resource.go',
    edits: [
      [
        'func Track(obj any, token *Token) {\n\tcheckArgs(obj, token)\n',
        'func Track(obj any, token *Token) {\n\tcheckArgs(obj, token)\n\n\tif !debugbuild.Enabled {\n\t\treturn\n\t}\n',
      ],
      [
        'func Untrack(obj any, token *Token) {\n\tcheckArgs(obj, token)\n',
        'func Untrack(obj any, token *Token) {\n\tcheckArgs(obj, token)\n\n\tif !debugbuild.Enabled {\n\t\treturn\n\t}\n',
      ],
    ],
  },
];

function patchFerretDb(source) {
  for (const { file, edits } of FERRETDB_PATCHES) {
    const target = path.join(source, file);
    let text = fs.readFileSync(target, 'utf8');
    for (const [from, to] of edits) {
      if (!text.includes(from))
        throw new Error(`FerretDB ${FERRETDB_VERSION}: ${file} no longer has the code a patch edits`);
      text = text.replace(from, to);
    }
    fs.writeFileSync(target, text);
  }
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
    const done = (value) => {
      socket.destroy();
      resolve(value);
    };
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
async function startRedis({ port, dir, persist = false, logFile, extraArgs = [] }) {
  const bin = ensureRedis();
  fs.mkdirSync(dir, { recursive: true });
  const args = [
    '--port',
    String(port),
    '--bind',
    '127.0.0.1',
    '--dir',
    dir,
    '--save',
    '',
    '--maxmemory-policy',
    'noeviction',
    '--appendonly',
    persist ? 'yes' : 'no',
    '--protected-mode',
    'yes',
    ...extraArgs,
  ];
  const child = spawnLogged(bin, args, logFile);
  await waitFor(() => redisAnswers(port), `redis-server on port ${port}`, child);
  return child;
}

/**
 * FerretDB on its PostgreSQL backend (docs/decisions/embedded-database.md): with the GIN twins that
 * scripts/postgres/gin-twins.sql adds, its equality pushdown is served by indexes. The SQLite backend serves no
 * filter by an index, `_id` included, so every read there is a full scan.
 */
async function startFerretDb({ port, postgresUrl, stateDir, logFile, debugPort }) {
  const bin = ensureFerretDb();
  fs.mkdirSync(stateDir, { recursive: true });
  const args = [
    '--handler=postgresql',
    `--listen-addr=127.0.0.1:${port}`,
    `--state-dir=${stateDir}`,
    // Its debug listener serves Prometheus metrics, commands counted by name (bench:capacity reads them).
    `--debug-addr=${debugPort ? `127.0.0.1:${debugPort}` : '-'}`,
    '--telemetry=disable',
    '--log-level=warn',
  ];
  // In the environment, not on the command line, where `ps` would show the password. FerretDB allocates heavily
  // while decoding documents and its heap is small: collecting at 4× the live heap instead of 2× takes a fifth off
  // the CPU a listing costs.
  const child = spawnLogged(bin, args, logFile, { GOGC: '400', ...process.env, FERRETDB_POSTGRESQL_URL: postgresUrl });
  await waitFor(() => portAccepts(port), `FerretDB on port ${port}`, child);
  return child;
}

/** PostgreSQL's server binaries: Debian's `postgresql` package, installed when missing. */
function ensurePostgres() {
  const find = () => {
    const base = '/usr/lib/postgresql';
    const versions = fs.existsSync(base)
      ? fs.readdirSync(base).filter((v) => fs.existsSync(path.join(base, v, 'bin', 'initdb')))
      : [];
    const newest = versions.sort((a, b) => Number(b) - Number(a))[0];
    if (newest) return path.join(base, newest, 'bin');
    const initdb = which('initdb');
    return initdb ? path.dirname(fs.realpathSync(initdb)) : null;
  };
  const found = find();
  if (found) return found;
  aptInstall(['postgresql']);
  const installed = find();
  if (!installed) throw new Error('postgresql was installed but initdb is not in /usr/lib/postgresql/*/bin');
  return installed;
}

/** PostgreSQL refuses to run as root: as root, the server runs as the `postgres` user Debian's package creates. */
function serverUser() {
  if (!process.getuid || process.getuid() !== 0) return {};
  const ids = (flag) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
  return { uid: ids('-u'), gid: ids('-g') };
}

/** `dir`, or when the server's user cannot reach it (a checkout under /root), a stable place of its own. */
function postgresDataDir(dir, user) {
  if (user.uid === undefined) return dir;
  const parent = path.dirname(dir);
  fs.mkdirSync(parent, { recursive: true });
  const reachable = spawnSync('test', ['-x', parent], user).status === 0;
  if (reachable) return dir;
  const home = '/var/lib/model-gateway';
  // Its own mode, not the cluster's 0700: the server's user has to pass through it.
  fs.mkdirSync(home, { recursive: true, mode: 0o755 });
  const elsewhere = path.join(home, require('node:crypto').createHash('sha256').update(dir).digest('hex').slice(0, 16));
  log(`the postgres user cannot reach ${parent}; keeping the database cluster in ${elsewhere}`);
  return elsewhere;
}

/**
 * Starts a PostgreSQL cluster in `dir` (created on first use) listening on 127.0.0.1:`port`, with the database
 * `ferretdb` and the GIN-twin event trigger in it. `durable: false` (tests, benchmarks) trades crash safety for speed.
 * Resolves to { child, url } where url is the FerretDB connection URL (password included).
 */
async function startPostgres({ port, dir, durable = true, logFile }) {
  const bin = ensurePostgres();
  const user = serverUser();
  const dataDir = postgresDataDir(dir, user);
  const passwordFile = `${dataDir}.password`;
  if (!fs.existsSync(path.join(dataDir, 'PG_VERSION'))) {
    fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    fs.writeFileSync(passwordFile, require('node:crypto').randomBytes(24).toString('hex'), { mode: 0o600 });
    if (user.uid !== undefined) {
      fs.chownSync(dataDir, user.uid, user.gid);
      fs.chownSync(passwordFile, user.uid, user.gid);
    }
    log(`creating a PostgreSQL cluster in ${dataDir}`);
    run(
      path.join(bin, 'initdb'),
      [
        '-D',
        dataDir,
        '-U',
        'postgres',
        '--auth=scram-sha-256',
        `--pwfile=${passwordFile}`,
        '-E',
        'UTF8',
        '--locale=C',
        ...(durable ? [] : ['--no-sync']),
      ],
      { ...user, stdio: ['ignore', 'ignore', 'inherit'] },
    );
  }
  const password = fs.readFileSync(passwordFile, 'utf8').trim();
  const settings = {
    listen_addresses: '127.0.0.1',
    port: String(port),
    unix_socket_directories: '',
    // FerretDB sends `_jsonb->$1 @> $2`: only a plan made with the field name known can use a GIN twin.
    plan_cache_mode: 'force_custom_plan',
    // Result bodies are large JSON texts: LZ4 compresses them several times faster than the default pglz.
    default_toast_compression: 'lz4',
    wal_compression: 'lz4',
    ...(durable ? {} : { fsync: 'off', synchronous_commit: 'off', full_page_writes: 'off' }),
  };
  const args = ['-D', dataDir, ...Object.entries(settings).flatMap(([name, value]) => ['-c', `${name}=${value}`])];
  const child = spawnLogged(path.join(bin, 'postgres'), args, logFile, process.env, user);
  // SIGTERM is PostgreSQL's smart shutdown, which waits for every client to leave; SIGINT is its fast one.
  child.stopSignal = 'SIGINT';
  const env = { ...process.env, PGPASSWORD: password };
  const psql = (database, ...args) =>
    spawnSync(
      path.join(bin, 'psql'),
      ['-h', '127.0.0.1', '-p', String(port), '-U', 'postgres', '-d', database, '-v', 'ON_ERROR_STOP=1', '-q', ...args],
      { env, encoding: 'utf8' },
    );
  await waitFor(() => psql('postgres', '-c', 'SELECT 1').status === 0, `PostgreSQL on port ${port}`, child);
  if (!psql('postgres', '-c', "SELECT 1 FROM pg_database WHERE datname = 'ferretdb'").stdout.includes('1')) {
    const created = psql('postgres', '-c', 'CREATE DATABASE ferretdb');
    if (created.status !== 0) throw new Error(`CREATE DATABASE ferretdb failed: ${created.stderr}`);
  }
  const twins = psql('ferretdb', '-f', path.join(__dirname, 'postgres', 'gin-twins.sql'));
  if (twins.status !== 0) throw new Error(`installing the GIN twins failed: ${twins.stderr}`);
  return { child, url: `postgres://postgres:${password}@127.0.0.1:${port}/ferretdb` };
}

/**
 * The embedded database: PostgreSQL in `dir`/postgres and FerretDB in front of it on `port`. Resolves to
 * { postgres, ferretDb, postgresUrl }; stopDatabase() stops both in order.
 */
async function startDatabase({ port, postgresPort, dir, durable = true, logDir, debugPort }) {
  const postgres = await startPostgres({
    port: postgresPort,
    dir: path.join(dir, 'postgres'),
    durable,
    logFile: logDir && path.join(logDir, 'postgres.log'),
  });
  try {
    const ferretDb = await startFerretDb({
      port,
      postgresUrl: postgres.url,
      stateDir: path.join(dir, 'ferretdb'),
      logFile: logDir && path.join(logDir, 'ferretdb.log'),
      debugPort,
    });
    return { postgres: postgres.child, ferretDb, postgresUrl: postgres.url };
  } catch (error) {
    await stop(postgres.child);
    throw error;
  }
}

/** FerretDB first: it holds PostgreSQL connections. */
async function stopDatabase(database) {
  if (!database) return;
  await stop(database.ferretDb);
  await stop(database.postgres);
}

function spawnLogged(bin, args, logFile, env = process.env, user = {}) {
  const out = logFile ? fs.openSync(logFile, 'a') : 'ignore';
  return spawn(bin, args, { stdio: ['ignore', out, out], env, ...user });
}

/** Sends `signal`, then SIGKILL if `child` is still there `graceMs` later; resolves once it has exited. */
function stop(child, signal = child?.stopSignal ?? 'SIGTERM', graceMs = 5000) {
  if (!child || child.exitCode !== null || child.signalCode) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
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

/**
 * MASTER_KEY for the embedded default: generated once and kept under .data/ (mode 600). Not when MASTER_KEYS is set,
 * which names the keys itself (undefined leaves MASTER_KEY out of a child's environment).
 */
function ensureMasterKey(root) {
  if (process.env.MASTER_KEY || process.env.MASTER_KEYS) return process.env.MASTER_KEY || undefined;
  const file = path.join(root, '.data', 'master.key');
  if (!fs.existsSync(file)) {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, require('node:crypto').randomBytes(32).toString('hex'), { mode: 0o600 });
  }
  return fs.readFileSync(file, 'utf8').trim();
}

module.exports = {
  CACHE_DIR,
  aptInstall,
  run,
  ensureRedis,
  ensureChromium,
  ensureCjkFont,
  ensurePrometheus,
  ensureFerretDb,
  ensureGo,
  ensurePostgres,
  ensureNodeModules,
  ensureBuilt,
  ensureMasterKey,
  startRedis,
  startFerretDb,
  startPostgres,
  startDatabase,
  stopDatabase,
  freePort,
  stop,
  redisAnswers,
  portAccepts,
  waitFor,
  log,
};
