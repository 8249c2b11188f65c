import { GatewayError } from '@gateway/common';
import { defineScript, GatewayRedis } from '@gateway/redis';

/** Failed sign-ins one address may make for one account in a window: the account's owner never shares this count. */
export const PAIR_FAILURES_ALLOWED = 10;
/** Per client address: enough for an office behind one NAT, too few to try passwords across many accounts. */
export const ADDRESS_FAILURES_ALLOWED = 50;
/** Failures of an account, from anywhere, before attempts from addresses it never signed in from are spaced out. */
export const ACCOUNT_FAILURES_BEFORE_DELAY = 10;
/** The account's delay: 1 s after the failure that starts it, doubling with each further one, up to a minute. */
export const ACCOUNT_DELAY_BASE_MS = 1_000;
export const ACCOUNT_DELAY_MAX_MS = 60_000;
export const FAILURE_WINDOW_SECONDS = 15 * 60;
/** How long a successful sign-in keeps its address known to the account (spared the account's delay). */
const KNOWN_ADDRESS_SECONDS = 30 * 86_400;

/** What the reservation script answers: reserved, or the throttle that refused, with the seconds until it allows. */
const Verdict = { Reserved: 0, Pair: 1, Address: 2, Account: 3 } as const;

/** ARGV of the reservation and the failure: the throttles' limits, in this order. */
type Limits = [
  pairAllowed: number,
  addressAllowed: number,
  accountFailuresBeforeDelay: number,
  windowSeconds: number,
  delayBaseMs: number,
  delayMaxMs: number,
];

const DELAY = `
local function delay(failures)
  return math.min(tonumber(ARGV[5]) * 2 ^ (failures - tonumber(ARGV[3])), tonumber(ARGV[6]))
end`;

/**
 * Reserves one attempt before the password is verified, so parallel attempts cannot all pass a check made before
 * any of them failed: the attempt counts as a failure until it succeeds. Server clock; one round trip.
 * KEYS: (account, address) failures, address failures, account failures, account delay-until, known address.
 * ARGV: pair limit, address limit, account failures before delay, window (s), delay base (ms), delay max (ms).
 * Returns {verdict, retryAfterSeconds}.
 */
const RESERVE = defineScript<
  [pair: string, address: string, account: string, delayUntil: string, knownAddress: string],
  Limits,
  [verdict: number, retryAfterSeconds: number]
>({
  name: 'reserveSignIn',
  keys: 5,
  lua: `${DELAY}
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
if tonumber(redis.call('GET', KEYS[1]) or '0') >= tonumber(ARGV[1]) then return {${Verdict.Pair}, redis.call('TTL', KEYS[1])} end
if tonumber(redis.call('GET', KEYS[2]) or '0') >= tonumber(ARGV[2]) then return {${Verdict.Address}, redis.call('TTL', KEYS[2])} end
local account = tonumber(redis.call('GET', KEYS[3]) or '0')
local delayed = account >= tonumber(ARGV[3]) and redis.call('EXISTS', KEYS[5]) == 0
if delayed then
  local untilMs = tonumber(redis.call('GET', KEYS[4]) or '0')
  if now < untilMs then return {${Verdict.Account}, math.ceil((untilMs - now) / 1000)} end
  -- This attempt holds the account's next slot while it is verified.
  redis.call('SET', KEYS[4], now + math.floor(delay(account + 1)), 'PX', tonumber(ARGV[4]) * 1000)
end
for i = 1, 3 do
  redis.call('INCR', KEYS[i])
  redis.call('EXPIRE', KEYS[i], tonumber(ARGV[4]))
end
return {${Verdict.Reserved}, 0}`,
});

/**
 * A failed attempt stays counted; once the account has failed often enough, its next attempt from an unknown
 * address waits from now. KEYS: account failures, account delay-until. ARGV as RESERVE's.
 */
const FAIL = defineScript<[account: string, delayUntil: string], Limits, number>({
  name: 'failSignIn',
  keys: 2,
  lua: `${DELAY}
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local account = tonumber(redis.call('GET', KEYS[1]) or '0')
if account >= tonumber(ARGV[3]) then
  redis.call('SET', KEYS[2], now + math.floor(delay(account)), 'PX', tonumber(ARGV[4]) * 1000)
end
return account`,
});

/**
 * A successful attempt is no failure: the pair's count is forgotten, the reserved counts given back, and the address
 * becomes known to the account. The account's other failures stay, so a sign-in by its owner does not hand an
 * attacker fresh attempts. KEYS: pair, address, account failures, known address. ARGV: known-address ttl (s).
 */
const SUCCEED = defineScript<
  [pair: string, address: string, account: string, knownAddress: string],
  [knownAddressSeconds: number],
  0
>({
  name: 'succeedSignIn',
  keys: 4,
  lua: `
redis.call('DEL', KEYS[1])
for i = 2, 3 do
  if tonumber(redis.call('GET', KEYS[i]) or '0') > 0 then redis.call('DECR', KEYS[i]) end
end
redis.call('SET', KEYS[4], '1', 'EX', tonumber(ARGV[1]))
return 0`,
});

/** One sign-in attempt, reserved before its password is verified; it ends as a failure or a success. */
export interface SignInAttempt {
  failed(): Promise<void>;
  succeeded(): Promise<void>;
}

/**
 * Console sign-in throttles (docs/operations.md#console-sign-in-throttles): per (account, address), per address,
 * and a progressive delay on the account as a whole for addresses it never signed in from, instead of a lock, so
 * failures made by someone else do not keep an account's owner out.
 */
export class SignInThrottle {
  private readonly limits: Limits = [
    PAIR_FAILURES_ALLOWED,
    ADDRESS_FAILURES_ALLOWED,
    ACCOUNT_FAILURES_BEFORE_DELAY,
    FAILURE_WINDOW_SECONDS,
    ACCOUNT_DELAY_BASE_MS,
    ACCOUNT_DELAY_MAX_MS,
  ];

  constructor(private readonly redis: GatewayRedis) {}

  /** Reserves an attempt for `email` (normalized) from `address`, or throws 429 RateLimited with Retry-After. */
  async reserve(email: string, address: string): Promise<SignInAttempt> {
    const { keys } = this.redis;
    const pair = keys.loginFailuresPair(email, address);
    const fromAddress = keys.loginFailuresFrom(address);
    const account = keys.loginFailures(email);
    const delayUntil = keys.loginDelayUntil(email);
    const known = keys.loginKnownAddress(email, address);
    const [verdict, retryAfter] = await this.redis.run(
      RESERVE,
      [pair, fromAddress, account, delayUntil, known],
      this.limits,
    );
    if (verdict !== Verdict.Reserved) {
      throw new GatewayError('RateLimited', REFUSALS[verdict], {
        headers: { 'retry-after': String(Math.max(1, retryAfter)) },
      });
    }
    return {
      failed: async () => {
        await this.redis.run(FAIL, [account, delayUntil], this.limits);
      },
      succeeded: async () => {
        await this.redis.run(SUCCEED, [pair, fromAddress, account, known], [KNOWN_ADDRESS_SECONDS]);
      },
    };
  }
}

const REFUSALS: Record<number, string> = {
  [Verdict.Pair]: 'too many failed sign-ins for this account from your address; try again later',
  [Verdict.Address]: 'too many failed sign-ins from your address; try again later',
  [Verdict.Account]:
    'this account has had many failed sign-ins, so attempts from new addresses are spaced out; try again in a moment',
};
