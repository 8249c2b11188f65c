import { GatewayError } from '@gateway/common';
import { defineScript, GatewayRedis } from '@gateway/redis';

/** Look-ups of legacy-form keys that found nothing, per client address and window, before the address must wait. */
export const API_KEY_FAILURES_ALLOWED = 20;
export const API_KEY_FAILURE_WINDOW_SECONDS = 15 * 60;

/**
 * Reserves one look-up against the address's failures, so parallel forged keys cannot all pass a count read before
 * any of them failed. KEYS: the address's failures. ARGV: allowed, window (s). Returns 0, or the seconds to wait.
 */
const RESERVE = defineScript<[failures: string], [allowed: number, windowSeconds: number], number>({
  name: 'reserveKeyLookUp',
  keys: 1,
  lua: `
if tonumber(redis.call('GET', KEYS[1]) or '0') >= tonumber(ARGV[1]) then return math.max(1, redis.call('TTL', KEYS[1])) end
redis.call('INCR', KEYS[1])
redis.call('EXPIRE', KEYS[1], tonumber(ARGV[2]))
return 0`,
});

/** A look-up that found a key was no failure. KEYS: the address's failures. */
const GIVE_BACK = defineScript<[failures: string], [], 0>({
  name: 'giveBackKeyLookUp',
  keys: 1,
  lua: `
if tonumber(redis.call('GET', KEYS[1]) or '0') > 0 then redis.call('DECR', KEYS[1]) end
return 0`,
});

/**
 * Database look-ups for API keys whose checksum anyone can compute (the legacy CRC form), per client address
 * (docs/operations.md#api-key-failures): a look-up counts as a failure until it finds a key.
 */
export class ApiKeyThrottle {
  constructor(private readonly redis: GatewayRedis) {}

  /** Runs `lookUp` once the address has a failure to spare, else throws 429 RateLimited with Retry-After. */
  async reserved<T>(address: string, lookUp: () => Promise<T>, found: (result: T) => boolean): Promise<T> {
    const key = this.redis.keys.apiKeyFailuresFrom(address);
    const wait = await this.redis.run(RESERVE, [key], [API_KEY_FAILURES_ALLOWED, API_KEY_FAILURE_WINDOW_SECONDS]);
    if (wait > 0) {
      throw new GatewayError(
        'RateLimited',
        'too many unknown API keys from your address; try again later, or use a key issued since keys carry a keyed checksum',
        { headers: { 'retry-after': String(wait) } },
      );
    }
    const result = await lookUp();
    if (found(result)) await this.redis.run(GIVE_BACK, [key], []);
    return result;
  }
}
