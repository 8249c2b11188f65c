'use strict';
// Pinned files: checked by size and sha256 before use, with a stamp beside each checked file (size, mtime, sha256)
// that spares re-hashing it on every start.
const crypto = require('node:crypto');
const fs = require('node:fs');
const { pipeline } = require('node:stream/promises');

/**
 * @typedef {object} Pin
 * @property {string} sha256 hex
 * @property {number} [size] bytes
 */

const stampOf = (file) => `${file}.sha256`;
const stamp = (stat, sha256) => `${stat.size} ${Math.trunc(stat.mtimeMs)} ${sha256}\n`;

/**
 * Whether `file` exists and has the pinned bytes (trusting a stamp that matches its size and mtime).
 * @param {string} file
 * @param {Pin} expected
 * @returns {Promise<boolean>}
 */
async function isVerified(file, expected) {
  if (!fs.existsSync(file)) return false;
  const stat = fs.statSync(file);
  if (expected.size !== undefined && stat.size !== expected.size) return false;
  try {
    if (fs.readFileSync(stampOf(file), 'utf8') === stamp(stat, expected.sha256)) return true;
  } catch {
    // no stamp yet: hash it below
  }
  if ((await sha256File(file)) !== expected.sha256) return false;
  markVerified(file, expected.sha256);
  return true;
}

/**
 * @param {string} file
 * @param {Pin} expected
 */
async function verifyFile(file, expected) {
  const digest = await sha256File(file);
  if (digest !== expected.sha256)
    throw new Error(`${file}: sha256 ${digest} does not match the expected ${expected.sha256}`);
}

/**
 * @param {string} file
 * @param {string} sha256
 */
function markVerified(file, sha256) {
  fs.writeFileSync(stampOf(file), stamp(fs.statSync(file), sha256));
}

/** @param {string} file */
async function sha256File(file) {
  const hash = crypto.createHash('sha256');
  await pipeline(fs.createReadStream(file), hash);
  return hash.digest('hex');
}

/**
 * `data` when it has the pinned size and sha256; refused otherwise.
 * @param {Buffer} data
 * @param {string} sha256
 * @param {string} what names the data in the error
 * @param {number} [size]
 */
function checked(data, sha256, what, size) {
  if (size !== undefined && data.length !== size) throw new Error(`${what}: ${data.length} bytes, expected ${size}`);
  const digest = crypto.createHash('sha256').update(data).digest('hex');
  if (digest !== sha256) throw new Error(`${what}: sha256 ${digest} does not match the pinned ${sha256}; refusing it`);
  return data;
}

/**
 * Readers see the old file or the whole new one, never a partial write.
 * @param {string} target
 * @param {Buffer} data
 */
function writeAtomically(target, data) {
  const temporary = `${target}.${process.pid}.part`;
  fs.writeFileSync(temporary, data);
  fs.renameSync(temporary, target);
}

module.exports = { isVerified, verifyFile, markVerified, checked, writeAtomically };
