'use strict';
// A Python venv under ~/.cache/model-gateway for a command from PyPI, installed once from a requirements file that pins
// every package, and made again when that file changes (its hash names the venv). Plain Node with built-ins only,
// like services.js.
const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { CACHE_DIR, aptInstall, log, run } = require('./services');

const pythonHasVenv = () => spawnSync('python3', ['-c', 'import venv, ensurepip'], { stdio: 'ignore' }).status === 0;

/** The path of `command` in the venv `<name>-<hash of requirements>`, installing the venv first when it is missing. */
function ensurePinnedVenv({ name, requirements, command }) {
  const pin = crypto.createHash('sha256').update(fs.readFileSync(requirements)).digest('hex').slice(0, 12);
  const venv = path.join(CACHE_DIR, `${name}-${pin}`);
  const bin = path.join(venv, 'bin', command);
  // Written last: a venv without it is an install that was cut short, and is made again.
  const done = path.join(venv, '.installed');
  if (fs.existsSync(done)) return bin;
  // Debian ships python3 without venv and ensurepip, which python3-venv adds.
  if (!pythonHasVenv()) aptInstall(['python3', 'python3-venv']);
  log(`installing ${command} from PyPI into ${venv} (first run only)`);
  fs.rmSync(venv, { recursive: true, force: true });
  fs.mkdirSync(CACHE_DIR, { recursive: true });
  run('python3', ['-m', 'venv', venv]);
  run(path.join(venv, 'bin', 'pip'), [
    'install',
    '--quiet',
    '--disable-pip-version-check',
    '--no-input',
    '-r',
    requirements,
  ]);
  fs.writeFileSync(done, `${pin}\n`);
  return bin;
}

module.exports = { ensurePinnedVenv };
