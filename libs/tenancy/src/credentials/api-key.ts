import { createHash, createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';
import { crc32 } from 'node:zlib';
import { AppConfig, BASE62, randomBase62 } from '@gateway/common';
import type { ApiKeyRecord } from '@gateway/db';

/**
 * 43 base62 characters carry 256 random bits; 6 more are a checksum. Keys issued now carry an HMAC under a key derived
 * from MASTER_KEY, which nobody outside the gateway can compute, so a forged key is refused without a database
 * look-up. Keys issued before carry a public CRC32 (docs/contracts.md#api-keys): still accepted, but looked up only
 * while the caller's address has failures to spare (ApiKeyAuthService).
 */
const BODY_LENGTH = 43;
const CHECKSUM_LENGTH = 6;
const KEY_PATTERN = new RegExp(`^sk-[0-9A-Za-z]{${BODY_LENGTH + CHECKSUM_LENGTH}}$`);

/**
 * The key API-key checksums are made under, derived from a master key (HKDF-SHA256, its own label), so the checksum
 * never reuses the key that seals Secret Keys. Every derivation for API keys goes through here.
 */
export function apiKeyChecksumKey(masterKey: string): Buffer {
  return Buffer.from(
    hkdfSync('sha256', Buffer.from(masterKey, 'hex'), Buffer.alloc(0), 'gateway api-key checksum', 32),
  );
}

/**
 * This deployment's checksum keys, one per listed master key (MASTER_KEYS, newest first): the first makes new keys'
 * checksums, each one verifies, so API keys issued under an older master key work while it stays listed.
 */
export function apiKeyChecksumKeys(config: AppConfig): Buffer[] {
  return config.masterKeys.map(apiKeyChecksumKey);
}

function toBase62(value: number): string {
  let out = '';
  for (let i = 0; i < CHECKSUM_LENGTH; i++) {
    out = BASE62[value % 62] + out;
    value = Math.floor(value / 62);
  }
  return out;
}

/** 48 bits of HMAC-SHA256 as 6 base62 characters: a forgery has one chance in 62^6 (5.7 * 10^10). */
function keyedChecksum(body: string, checksumKey: Buffer): string {
  return toBase62(createHmac('sha256', checksumKey).update(body).digest().readUIntBE(0, 6));
}

function crcChecksum(body: string): string {
  return toBase62(crc32(body));
}

export function generateApiKey(checksumKey: Buffer): string {
  const body = randomBase62(BODY_LENGTH);
  return `sk-${body}${keyedChecksum(body, checksumKey)}`;
}

/**
 * `keyed`: a checksum only the gateway can make; `legacy`: the public CRC32 of keys issued before keyed checksums,
 * which anyone can forge; `malformed`: neither. Shape and checksums only, no database look-up.
 */
export type ApiKeyForm = 'keyed' | 'legacy' | 'malformed';

export function apiKeyForm(key: string, checksumKeys: readonly Buffer[]): ApiKeyForm {
  if (!KEY_PATTERN.test(key)) return 'malformed';
  const body = key.slice(3, 3 + BODY_LENGTH);
  const given = Buffer.from(key.slice(3 + BODY_LENGTH));
  const matches = (checksum: string) => timingSafeEqual(given, Buffer.from(checksum));
  if (checksumKeys.some((checksumKey) => matches(keyedChecksum(body, checksumKey)))) return 'keyed';
  return matches(crcChecksum(body)) ? 'legacy' : 'malformed';
}

export function hashApiKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

export function displayPrefix(key: string): string {
  return `${key.slice(0, 10)}…`;
}

/** The name of the key an application is created with, and of keys issued before keys had names. */
export const DEFAULT_KEY_NAME = 'default';

/** A key as the console and the CLI list it: never the key nor its hash. */
export function presentKey(key: ApiKeyRecord) {
  const iso = (date?: Date) => (date ? new Date(date).toISOString() : null);
  const expired = key.expiresAt !== undefined && new Date(key.expiresAt).getTime() <= Date.now();
  return {
    id: key._id,
    name: key.name ?? DEFAULT_KEY_NAME,
    prefix: key.prefix,
    status: key.status === 'active' && expired ? 'expired' : key.status,
    created_at: new Date(key.createdAt).toISOString(),
    expires_at: iso(key.expiresAt),
    last_used_at: iso(key.lastUsedAt),
    revoked_at: iso(key.revokedAt),
  };
}
