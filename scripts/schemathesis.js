'use strict';
// schemathesis (PyPI) for the fuzzing suite (test/e2e/fuzz.e2e-spec.ts): a Python venv under
// ~/.cache/model-gateway/schemathesis-<version>-<hash of the requirements>, installed once from
// scripts/schemathesis/requirements.txt (every package pinned) and reused while that file is unchanged. Plain Node
// with built-ins only, like services.js.
const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { CACHE_DIR, aptInstall, log, run } = require('./services');

const REQUIREMENTS = path.join(__dirname, 'schemathesis', 'requirements.txt');
const SCHEMATHESIS_VERSION = /^schemathesis==(\S+)$/m.exec(fs.readFileSync(REQUIREMENTS, 'utf8'))[1];

const pythonHasVenv = () => spawnSync('python3', ['-c', 'import venv, ensurepip'], { stdio: 'ignore' }).status === 0;

/** The path of the schemathesis command, installing it first when the cache has no venv for this requirements file. */
function ensureSchemathesis() {
  const requirements = fs.readFileSync(REQUIREMENTS);
  const pin = crypto.createHash('sha256').update(requirements).digest('hex').slice(0, 12);
  const venv = path.join(CACHE_DIR, `schemathesis-${SCHEMATHESIS_VERSION}-${pin}`);
  const bin = path.join(venv, 'bin', 'schemathesis');
  // Written last: a venv without it is an install that was cut short, and is made again.
  const done = path.join(venv, '.installed');
  if (fs.existsSync(done)) return bin;
  // Debian ships python3 without venv and ensurepip, which python3-venv adds.
  if (!pythonHasVenv()) aptInstall(['python3', 'python3-venv']);
  log(`installing schemathesis ${SCHEMATHESIS_VERSION} from PyPI into ${venv} (first run only)`);
  fs.rmSync(venv, { recursive: true, force: true });
  fs.mkdirSync(CACHE_DIR, { recursive: true });
  run('python3', ['-m', 'venv', venv]);
  run(path.join(venv, 'bin', 'pip'), [
    'install',
    '--quiet',
    '--disable-pip-version-check',
    '--no-input',
    '-r',
    REQUIREMENTS,
  ]);
  fs.writeFileSync(done, `${SCHEMATHESIS_VERSION}\n`);
  return bin;
}

module.exports = { ensureSchemathesis, SCHEMATHESIS_VERSION };

if (require.main === module) process.stdout.write(`${ensureSchemathesis()}\n`);
