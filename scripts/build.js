'use strict';
// Builds every app of the monorepo with the Nest CLI (tsc builder, path aliases rewritten to relative imports).
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const nest = path.join(root, 'node_modules', '.bin', 'nest');
for (const app of ['api', 'worker', 'cli']) {
  const result = spawnSync(nest, ['build', app], { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) process.exit(result.status ?? 1);
}
fs.writeFileSync(path.join(root, 'dist', '.built'), new Date().toISOString());
