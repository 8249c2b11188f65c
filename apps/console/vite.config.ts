import path from 'node:path';
import { defineConfig } from 'vite';

/** The console is served by the api under /console (apps/api/src/console/static); built into dist/console. */
export default defineConfig({
  root: __dirname,
  base: '/console/',
  resolve: { alias: { '@gateway/contracts': path.resolve(__dirname, '../../libs/contracts/src') } },
  oxc: { jsx: { runtime: 'automatic' } },
  build: {
    outDir: path.resolve(__dirname, '../../dist/console'),
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
