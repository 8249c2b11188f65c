import { createHash } from 'node:crypto';
import { crc32 } from 'node:zlib';
import { BASE62, randomBase62 } from '@gateway/common';

/** 43 base62 characters carry 256 random bits; 6 more are a CRC32 checksum so scanners can recognise a real key. */
const BODY_LENGTH = 43;
const CHECKSUM_LENGTH = 6;
const KEY_PATTERN = new RegExp(`^sk-[0-9A-Za-z]{${BODY_LENGTH + CHECKSUM_LENGTH}}$`);

function checksum(body: string): string {
  let value = crc32(body);
  let out = '';
  for (let i = 0; i < CHECKSUM_LENGTH; i++) {
    out = BASE62[value % 62] + out;
    value = Math.floor(value / 62);
  }
  return out;
}

export function generateApiKey(): string {
  const body = randomBase62(BODY_LENGTH);
  return `sk-${body}${checksum(body)}`;
}

/** Shape and checksum only: rejects typos and garbage without a database look-up. */
export function isWellFormedApiKey(key: string): boolean {
  if (!KEY_PATTERN.test(key)) return false;
  const body = key.slice(3, 3 + BODY_LENGTH);
  return key.slice(3 + BODY_LENGTH) === checksum(body);
}

export function hashApiKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

export function displayPrefix(key: string): string {
  return `${key.slice(0, 10)}…`;
}
