'use strict';
// schemathesis (PyPI) for the fuzzing suite (test/e2e/fuzz.e2e-spec.ts): a Python venv under
// ~/.cache/model-gateway/schemathesis-<version>-<hash of the requirements>, installed once from
// scripts/schemathesis/requirements.txt (every package pinned) and reused while that file is unchanged. Plain Node
// with built-ins only, like services.js.
const fs = require('node:fs');
const path = require('node:path');
const { ensurePinnedVenv } = require('./python-venv');

const REQUIREMENTS = path.join(__dirname, 'schemathesis', 'requirements.txt');
const SCHEMATHESIS_VERSION = /^schemathesis==(\S+)$/m.exec(fs.readFileSync(REQUIREMENTS, 'utf8'))[1];

/** The path of the schemathesis command, installing it first when the cache has no venv for this requirements file. */
function ensureSchemathesis() {
  return ensurePinnedVenv({
    name: `schemathesis-${SCHEMATHESIS_VERSION}`,
    requirements: REQUIREMENTS,
    command: 'schemathesis',
  });
}

module.exports = { ensureSchemathesis, SCHEMATHESIS_VERSION };

if (require.main === module) process.stdout.write(`${ensureSchemathesis()}\n`);
