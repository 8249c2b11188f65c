'use strict';
// Builds every app of the monorepo: api, worker and cli with the Nest CLI (tsc builder, path aliases rewritten to
// relative imports), the console with Vite.
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const zlib = require('node:zlib');

const root = path.resolve(__dirname, '..');
const nest = path.join(root, 'node_modules', '.bin', 'nest');
for (const app of ['api', 'worker', 'cli']) {
  const result = spawnSync(nest, ['build', app], { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) process.exit(result.status ?? 1);
}
buildConsole();
fs.writeFileSync(path.join(root, 'dist', '.built'), new Date().toISOString());

/**
 * The console (apps/console) with Vite into dist/console, then a Brotli and a gzip copy of each text asset, which
 * the api serves to browsers that accept them (no compression work per request).
 */
function buildConsole() {
  const result = spawnSync(
    path.join(root, 'node_modules', '.bin', 'vite'),
    ['build', '--config', 'apps/console/vite.config.mts', '--logLevel', 'warn'],
    { cwd: root, stdio: 'inherit' },
  );
  if (result.status !== 0) process.exit(result.status ?? 1);
  const dir = path.join(root, 'dist', 'console');
  for (const file of fs.readdirSync(dir, { recursive: true })) {
    const full = path.join(dir, file);
    if (!/\.(js|css|html|svg|json)$/.test(full) || !fs.statSync(full).isFile()) continue;
    const body = fs.readFileSync(full);
    fs.writeFileSync(
      `${full}.br`,
      zlib.brotliCompressSync(body, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 11 } }),
    );
    fs.writeFileSync(`${full}.gz`, zlib.gzipSync(body, { level: 9 }));
  }
}
