import { AppConfig, ErrorCode, GatewayError, randomBase62 } from '@gateway/common';
import { MetricsService } from '@gateway/metrics';
import { Admission, GatewayRedis, RedisKeys } from '@gateway/queue';
import { Injectable } from '@nestjs/common';
import Redis from 'ioredis';
import type { Principal } from '../auth/principal';

/** What the admission script answers: admitted, or the first limit that refused, in the order it checks them. */
const AdmitCode = { Admitted: 0, DailyCalls: 1, RequestsPerMinute: 2, Concurrency: 3, TokenQuota: 4 } as const;
type RefusalCode = Exclude<(typeof AdmitCode)[keyof typeof AdmitCode], typeof AdmitCode.Admitted>;

/**
 * Checks every limit of the application first and applies them only if all pass, so a rejected request
 * consumes nothing (docs/contracts.md). Server clock throughout; one round trip.
 * KEYS: daily counter, minute counter, concurrency leases (zset), token counter.
 * ARGV: daily limit, rpm, concurrency, token quota, lease id, lease ms, tokens to reserve, daily key ttl (s).
 * Returns {code, dailyUsed} with an AdmitCode, interpolated below so both sides read the same names.
 */
const ADMIT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local daily, rpm, conc, quota = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
local reserve = tonumber(ARGV[7])
local used = tonumber(redis.call('GET', KEYS[1]) or '0')
if daily > 0 and used >= daily then return {${AdmitCode.DailyCalls}, used} end
if rpm > 0 and tonumber(redis.call('GET', KEYS[2]) or '0') >= rpm then return {${AdmitCode.RequestsPerMinute}, used} end
if conc > 0 then
  redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', now)
  if redis.call('ZCARD', KEYS[3]) >= conc then return {${AdmitCode.Concurrency}, used} end
end
if quota > 0 and tonumber(redis.call('GET', KEYS[4]) or '0') + reserve > quota then return {${AdmitCode.TokenQuota}, used} end
used = redis.call('INCR', KEYS[1])
redis.call('EXPIRE', KEYS[1], tonumber(ARGV[8]))
if rpm > 0 then
  redis.call('INCR', KEYS[2])
  redis.call('EXPIRE', KEYS[2], 120)
end
if conc > 0 then
  redis.call('ZADD', KEYS[3], now + tonumber(ARGV[6]), ARGV[5])
  redis.call('PEXPIRE', KEYS[3], tonumber(ARGV[6]))
end
if quota > 0 then redis.call('INCRBY', KEYS[4], reserve) end
return {${AdmitCode.Admitted}, used}`;

type LimitsRedis = Redis & {
  admitRequest(...args: (string | number)[]): Promise<[RefusalCode | typeof AdmitCode.Admitted, number]>;
};

export interface RateLimitState {
  limit: number;
  remaining: number;
  resetSeconds: number;
}

const REJECTIONS = {
  [AdmitCode.DailyCalls]: [
    'DailyLimitExceeded',
    'the daily call limit of this application is used up; it resets at 00:00 UTC',
  ],
  [AdmitCode.RequestsPerMinute]: ['RateLimited', 'the requests-per-minute limit of this application is reached'],
  [AdmitCode.Concurrency]: [
    'RateLimited',
    'the concurrency limit of this application is reached; retry when a call finishes',
  ],
  [AdmitCode.TokenQuota]: ['QuotaExceeded', 'the token quota of this application is used up'],
} as const satisfies Record<RefusalCode, readonly [ErrorCode, string]>;

/** Daily calls, requests per minute, concurrency slots and token quota, shared by every api instance and worker. */
@Injectable()
export class LimitsService {
  private readonly redis: LimitsRedis;
  private readonly keys: RedisKeys;
  private readonly leaseMs: number;

  constructor(
    config: AppConfig,
    redis: GatewayRedis,
    private readonly metrics: MetricsService,
  ) {
    this.redis = redis.client as LimitsRedis;
    this.redis.defineCommand('admitRequest', { numberOfKeys: 4, lua: ADMIT });
    this.keys = new RedisKeys(config.REDIS_PREFIX);
    this.leaseMs = config.CONCURRENCY_LEASE_MS;
  }

  /**
   * Admits a request or throws its 429 with Retry-After; applications without limits cost no round trip, and
   * `reserveTokens` (a tokenizer's count) runs only for an application with a token quota.
   */
  async admit(
    principal: Principal,
    reserveTokens: () => number,
  ): Promise<{ admission: Admission; rateLimit?: RateLimitState }> {
    const { dailyCallLimit, requestsPerMinute, concurrencyLimit, tokenQuota } = principal;
    if (!dailyCallLimit && !requestsPerMinute && !concurrencyLimit && !tokenQuota) return { admission: {} };
    const now = new Date();
    const leaseId = concurrencyLimit ? randomBase62(16) : '';
    const reserve = tokenQuota ? reserveTokens() : 0;
    const [code, dailyUsed] = await this.redis.admitRequest(
      ...this.scriptKeys(principal.appId, now),
      dailyCallLimit,
      requestsPerMinute,
      concurrencyLimit,
      tokenQuota,
      leaseId,
      this.leaseMs,
      reserve,
      2 * 86_400,
    );
    const rateLimit = dailyCallLimit
      ? {
          limit: dailyCallLimit,
          remaining: Math.max(0, dailyCallLimit - dailyUsed),
          resetSeconds: secondsToUtcMidnight(now),
        }
      : undefined;
    if (code !== AdmitCode.Admitted) {
      const [errorCode, message] = REJECTIONS[code];
      this.metrics.limitRejections.inc({ code: errorCode });
      throw new GatewayError(errorCode, message, {
        headers: { 'retry-after': String(retryAfter(code, now)), ...(rateLimit ? rateLimitHeaders(rateLimit) : {}) },
      });
    }
    return {
      admission: { ...(leaseId ? { leaseId } : {}), ...(reserve ? { reservedTokens: reserve } : {}) },
      rateLimit,
    };
  }

  /** The daily window as it stands, for responses that do not consume a call (GET /v1/models, /v1/tasks). */
  async dailyState(principal: Principal): Promise<RateLimitState | undefined> {
    if (!principal.dailyCallLimit) return undefined;
    const now = new Date();
    const used = Number((await this.redis.get(this.keys.dailyCalls(principal.appId, now))) ?? 0);
    return {
      limit: principal.dailyCallLimit,
      remaining: Math.max(0, principal.dailyCallLimit - used),
      resetSeconds: secondsToUtcMidnight(now),
    };
  }

  /** Frees the slot and corrects the reservation to what the task really used (0 when it failed or never ran). */
  async settle(appId: string, admission: Admission | undefined, usedTokens: number): Promise<void> {
    if (!admission?.leaseId && !admission?.reservedTokens) return;
    const pipeline = this.redis.pipeline();
    if (admission.leaseId) pipeline.zrem(this.keys.concurrencyLeases(appId), admission.leaseId);
    if (admission.reservedTokens !== undefined)
      pipeline.incrby(this.keys.tokenUsage(appId), usedTokens - admission.reservedTokens);
    await pipeline.exec();
  }

  /** The admission script's KEYS, in its order. */
  private scriptKeys(appId: string, now: Date): [string, string, string, string] {
    return [
      this.keys.dailyCalls(appId, now),
      this.keys.minuteRequests(appId, now),
      this.keys.concurrencyLeases(appId),
      this.keys.tokenUsage(appId),
    ];
  }
}

export function rateLimitHeaders(state: RateLimitState): Record<string, string> {
  return {
    'x-ratelimit-limit-requests': String(state.limit),
    'x-ratelimit-remaining-requests': String(state.remaining),
    'x-ratelimit-reset-requests': `${state.resetSeconds}s`,
  };
}

function secondsToUtcMidnight(now: Date): number {
  const midnight = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1);
  return Math.ceil((midnight - now.getTime()) / 1000);
}

function retryAfter(code: RefusalCode, now: Date): number {
  if (code === AdmitCode.DailyCalls) return secondsToUtcMidnight(now);
  if (code === AdmitCode.RequestsPerMinute) return 60 - now.getUTCSeconds();
  if (code === AdmitCode.Concurrency) return 1;
  return 3600;
}
