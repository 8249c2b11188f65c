import { randomBytes } from 'node:crypto';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

// CSPRNG bytes drawn in blocks and handed out once each (crypto.randomUUID caches the same way): a
// randomBytes call per id was a measurable share of the api's CPU per request.
const POOL_BYTES = 8192;
let pool = Buffer.alloc(0);
let poolOffset = 0;

function nextRandomByte(): number {
  if (poolOffset === pool.length) {
    pool = randomBytes(POOL_BYTES);
    poolOffset = 0;
  }
  return pool[poolOffset++];
}

/** `length` base62 characters from the CSPRNG (rejection sampling keeps every character equally likely). */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    const byte = nextRandomByte();
    if (byte < 248) out += BASE62[byte % 62];
  }
  return out;
}

export type IdPrefix = 'task' | 'app' | 'key' | 'req' | 'inst' | 'user' | 'in' | 'whd' | 'aud';

/** `prefix_` + 22 base62 characters (about 131 random bits). */
export function newId(prefix: IdPrefix): string {
  return `${prefix}_${randomBase62(22)}`;
}

export { BASE62 };
