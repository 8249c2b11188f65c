'use strict';
// `npm run lint` runs dependency-cruiser with these rules over apps/ and libs/ (unit specs left out): the layers of
// scripts/layers.js, no app imported by a library or another app, and no cycle through two libraries.
const { LAYERS } = require('./scripts/layers');

const libs = (names) => `^libs/(${names.join('|')})/`;

/** A layer's libraries may not import their own layer's other libraries, nor any layer above. */
const layerRules = LAYERS.map((layer, index) => ({
  name: `layer-${index}-imports-lower-layers-only`,
  comment: `${layer.join(', ')} may import only ${LAYERS.slice(0, index).flat().join(', ') || 'no other library'} (scripts/layers.js)`,
  severity: 'error',
  from: { path: libs(layer) },
  to: { path: libs(LAYERS.slice(index).flat()), pathNot: '^libs/$1/' },
}));

module.exports = {
  forbidden: [
    {
      name: 'libs-never-import-apps',
      severity: 'error',
      from: { path: '^libs/' },
      to: { path: '^apps/' },
    },
    {
      name: 'apps-never-import-each-other',
      severity: 'error',
      from: { path: '^apps/([^/]+)/' },
      to: { path: '^apps/', pathNot: '^apps/$1/' },
    },
    {
      name: 'every-library-has-a-layer',
      comment: 'a new folder under libs/ gets its place in scripts/layers.js and docs/architecture.md',
      severity: 'error',
      from: { path: '^libs/', pathNot: libs(LAYERS.flat()) },
      to: {},
    },
    {
      name: 'no-cycle-between-libraries',
      comment: "reported from the libraries' entry points, which every import between libraries goes through",
      severity: 'error',
      from: { path: '^libs/([^/]+)/src/index\\.ts$' },
      to: { circular: true, via: { path: '^libs/', pathNot: '^libs/$1/' } },
    },
    ...layerRules,
  ],
  options: {
    includeOnly: '^(apps|libs)/',
    exclude: { path: ['\\.(int-|e2e-)?spec\\.ts$'] },
    doNotFollow: { path: 'node_modules' },
    // Type-only imports count: a layer is about what a library knows, not only what it runs.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.tsx', '.js', '.mjs', '.json'] },
  },
};
