import { crc32 } from 'node:zlib';
import { BASE62 } from '@gateway/common';
import { apiKeyChecksumKey, apiKeyForm, generateApiKey, hashApiKey } from './api-key';

const checksumKey = apiKeyChecksumKey('0f'.repeat(32));

/** A key as issued before keyed checksums: 43 base62 characters and their CRC32 in 6 base62 digits. */
function legacyKey(body = 'A'.repeat(43)): string {
  let value = crc32(body);
  let checksum = '';
  for (let i = 0; i < 6; i++) {
    checksum = BASE62[value % 62] + checksum;
    value = Math.floor(value / 62);
  }
  return `sk-${body}${checksum}`;
}

describe('API keys', () => {
  it('are sk- plus 49 base62 characters whose keyed checksum verifies', () => {
    const key = generateApiKey(checksumKey);
    expect(key).toMatch(/^sk-[0-9A-Za-z]{49}$/);
    expect(apiKeyForm(key, [checksumKey])).toBe('keyed');
  });

  it('reject a single changed character through the checksum', () => {
    const key = generateApiKey(checksumKey);
    const flipped = key.slice(0, 10) + (key[10] === 'a' ? 'b' : 'a') + key.slice(11);
    expect(apiKeyForm(flipped, [checksumKey])).toBe('malformed');
  });

  it('verify only under the master key that made them, or one listed beside it', () => {
    const other = apiKeyChecksumKey('1e'.repeat(32));
    const key = generateApiKey(checksumKey);
    expect(apiKeyForm(key, [other])).toBe('malformed');
    expect(apiKeyForm(key, [other, checksumKey])).toBe('keyed');
  });

  it('tell the public CRC32 form of keys issued before from a forgery of neither', () => {
    expect(apiKeyForm(legacyKey(), [checksumKey])).toBe('legacy');
    const legacy = legacyKey();
    const retyped = legacy.slice(0, -1) + (legacy.endsWith('0') ? '1' : '0');
    expect(apiKeyForm(retyped, [checksumKey])).toBe('malformed');
    expect(apiKeyForm('sk-short', [checksumKey])).toBe('malformed');
  });

  it('are never equal twice and hash to 64 hex characters', () => {
    const keys = new Set(Array.from({ length: 1000 }, () => generateApiKey(checksumKey)));
    expect(keys.size).toBe(1000);
    expect(hashApiKey([...keys][0])).toMatch(/^[0-9a-f]{64}$/);
  });
});
