import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const here = path.dirname(fileURLToPath(import.meta.url));

/** The console is served by the api under /console (apps/api/src/console/static); built into dist/console. */
export default defineConfig({
  root: here,
  base: '/console/',
  resolve: { alias: { '@gateway/contracts': path.resolve(here, '../../libs/contracts/src') } },
  oxc: { jsx: { runtime: 'automatic' } },
  build: {
    outDir: path.resolve(here, '../../dist/console'),
    emptyOutDir: true,
    // Hashed file names: the api serves assets/ with a year-long immutable cache and index.html with none.
    assetsDir: 'assets',
    chunkSizeWarningLimit: 600,
    rolldownOptions: {
      // Mantine marks its modules "use client" for React Server Components, which a browser-only bundle ignores.
      onwarn(warning, warn) {
        if (warning.code !== 'MODULE_LEVEL_DIRECTIVE') warn(warning);
      },
    },
  },
});
