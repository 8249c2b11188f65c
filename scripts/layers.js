'use strict';
// The allowed direction between libraries, written down once: `npm run lint` enforces it (.dependency-cruiser.js)
// and checks that docs/architecture.md's layer table says the same (scripts/check-docs.js). A library imports only
// libraries in lower layers; the apps (apps/*) import any library and no other app; nothing imports an app. Unit
// specs, test/ and bench/ may import anything.

/** Lowest first. */
const LAYERS = [
  ['common'],
  ['contracts'],
  ['catalog', 'outbound', 'redis'],
  ['db', 'queue'],
  ['imaging', 'metrics', 'webhooks'],
  ['ledger', 'local-imaging', 'tenancy'],
  ['providers'],
];

module.exports = { LAYERS };
