import { AppConfig, ErrorCode, formatNanos, GatewayError, randomBase62 } from '@gateway/common';
import { MetricsService } from '@gateway/metrics';
// What an admission holds travels in the task's job (TaskEnvelope.admission): job contracts.
import type { Admission, BudgetCounter, BudgetCrossing } from '@gateway/queue';
import { defineScript, GatewayRedis, RedisKeys } from '@gateway/redis';
import { Injectable } from '@nestjs/common';
import type Redis from 'ioredis';
import type { Principal } from '../auth/principal';
import { budgetKeyTtlSeconds, budgetPeriodOf, secondsToBudgetReset } from './budget';

/** What the admission script answers: admitted, or the first limit that refused, in the order it checks them. */
const AdmitCode = {
  Admitted: 0,
  DailyCalls: 1,
  RequestsPerMinute: 2,
  Concurrency: 3,
  TokenQuota: 4,
  Budget: 5,
} as const;
type RefusalCode = Exclude<(typeof AdmitCode)[keyof typeof AdmitCode], typeof AdmitCode.Admitted>;

/**
 * Checks every limit of the application first and applies them only if all pass, so a rejected request
 * consumes nothing (docs/contracts.md). Server clock throughout; one round trip.
 * KEYS: daily counter, minute counter, concurrency leases (zset), token counter, then one spent counter per budget
 * (the application's, the owner's), each in nanos for its period.
 * ARGV: daily limit, rpm, concurrency, token quota, lease id, lease ms, tokens to reserve, daily key ttl (s), cost to
 * reserve (nanos), then per budget its amount (nanos) and its counter's ttl (s).
 * Returns {code, dailyUsed, budget} with an AdmitCode, interpolated below so both sides read the same names, and
 * for a budget refusal which budget (1-based, in KEYS order) refused.
 */
const ADMIT = defineScript<
  [daily: string, minute: string, concurrency: string, tokens: string, ...budgetsSpent: string[]],
  [
    dailyLimit: number,
    rpm: number,
    concurrency: number,
    tokenQuota: number,
    leaseId: string,
    leaseMs: number,
    tokens: number,
    dailyTtlSeconds: number,
    costNanos: number,
    ...budgetAmountsAndTtls: number[],
  ],
  [RefusalCode | typeof AdmitCode.Admitted, number, number?]
>({
  name: 'admitRequest',
  // The key count varies with the budgets an application has, so it is sent with each call.
  keys: 'variable',
  lua: `
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
local cost = tonumber(ARGV[9] or '0')
for j = 1, #KEYS - 4 do
  local spent = tonumber(redis.call('GET', KEYS[4 + j]) or '0')
  local amount = tonumber(ARGV[8 + 2 * j])
  if spent >= amount or spent + cost > amount then return {${AdmitCode.Budget}, used, j} end
end
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
for j = 1, #KEYS - 4 do
  redis.call('INCRBY', KEYS[4 + j], cost)
  redis.call('EXPIRE', KEYS[4 + j], tonumber(ARGV[9 + 2 * j]))
end
return {${AdmitCode.Admitted}, used}`,
});

/**
 * Corrects each budget counter a task was admitted against by (real cost − reservation), and marks the first time in
 * the period its spending reaches 80 % and 100 % of the budget.
 * KEYS: per budget its spent counter, then its hash of thresholds already announced.
 * ARGV: the correction (nanos), then per budget its amount (nanos) and its counters' ttl (s).
 * Returns, flat, {budget (1-based), threshold, spent} for each threshold newly reached.
 */
const SETTLE_BUDGET = defineScript<string[], [deltaNanos: number, ...amountsAndTtls: number[]], number[]>({
  name: 'settleBudget',
  keys: 'variable',
  lua: `
local delta = tonumber(ARGV[1])
local crossed = {}
for j = 1, #KEYS / 2 do
  local spent = redis.call('INCRBY', KEYS[2 * j - 1], delta)
  local amount, ttl = tonumber(ARGV[2 * j]), tonumber(ARGV[2 * j + 1])
  redis.call('EXPIRE', KEYS[2 * j - 1], ttl)
  -- 80 %: spent / amount >= 4 / 5, in products Lua's doubles hold exactly (amounts are at most 1e15).
  local reached = {[80] = spent * 5 >= amount * 4, [100] = spent >= amount}
  for _, threshold in ipairs({80, 100}) do
    if reached[threshold] and redis.call('HSETNX', KEYS[2 * j], threshold, spent) == 1 then
      redis.call('EXPIRE', KEYS[2 * j], ttl)
      table.insert(crossed, j)
      table.insert(crossed, threshold)
      table.insert(crossed, spent)
    end
  end
end
return crossed`,
});

/** What an admitted request holds until it ends: its tokens, and its worst-case cost for a budget. */
export interface AdmissionReserve {
  /** The request's tokens, counted by the model's tokenizer. */
  tokens(): number;
  /** The most the request can cost, given its reserved tokens (nanos). */
  costNanos(tokens: number): number;
}

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
  [AdmitCode.Budget]: ['BudgetExceeded', 'the budget is used up'],
} as const satisfies Record<RefusalCode, readonly [ErrorCode, string]>;

/** Daily calls, requests per minute, concurrency slots and token quota, shared by every api instance and worker. */
@Injectable()
export class LimitsService {
  private readonly redis: Redis;
  private readonly keys: RedisKeys;
  private readonly leaseMs: number;

  constructor(
    config: AppConfig,
    redis: GatewayRedis,
    private readonly metrics: MetricsService,
  ) {
    this.redis = redis.client;
    // Settling runs in a pipeline, which has the scripts its client had when it was made.
    SETTLE_BUDGET.defineOn(this.redis);
    this.keys = redis.keys;
    this.leaseMs = config.CONCURRENCY_LEASE_MS;
  }

  /**
   * Admits a request or throws its 429 with Retry-After; applications without limits or budgets cost no round trip,
   * and the reserve (a tokenizer's count, a cost) is worked out only for an application with a token quota or budget.
   */
  async admit(
    principal: Principal,
    reserve: AdmissionReserve,
  ): Promise<{ admission: Admission; rateLimit?: RateLimitState }> {
    const { dailyCallLimit, requestsPerMinute, concurrencyLimit, tokenQuota } = principal;
    const noBudget = !principal.budget && !principal.ownerBudget;
    if (!dailyCallLimit && !requestsPerMinute && !concurrencyLimit && !tokenQuota && noBudget) return { admission: {} };
    const now = new Date();
    const leaseId = concurrencyLimit ? randomBase62(16) : '';
    const counters = noBudget ? [] : this.budgetCounters(principal, now);
    const tokens = tokenQuota || counters.length > 0 ? reserve.tokens() : 0;
    const cost = counters.length > 0 ? reserve.costNanos(tokens) : 0;
    const [code, dailyUsed, refusedBudget] = await ADMIT.run(
      this.redis,
      [...this.scriptKeys(principal.appId, now), ...counters.map((counter) => counter.key)],
      [
        dailyCallLimit,
        requestsPerMinute,
        concurrencyLimit,
        tokenQuota,
        leaseId,
        this.leaseMs,
        tokenQuota ? tokens : 0,
        2 * 86_400,
        cost,
        ...counters.flatMap((counter) => [counter.amountNanos, budgetKeyTtlSeconds(counter.period)]),
      ],
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
      this.metrics.appLimitRejections.inc(principal.appId, 1, errorCode);
      const budget = code === AdmitCode.Budget ? counters[(refusedBudget ?? 1) - 1] : undefined;
      throw new GatewayError(errorCode, budget ? budgetRefusal(budget, cost) : message, {
        headers: {
          'retry-after': String(budget ? secondsToBudgetReset(budget.period, now) : retryAfter(code, now)),
          ...(rateLimit ? rateLimitHeaders(rateLimit) : {}),
        },
      });
    }
    return {
      admission: {
        ...(leaseId ? { leaseId } : {}),
        ...(tokenQuota && tokens ? { reservedTokens: tokens } : {}),
        ...(counters.length > 0 ? { budget: { reservedNanos: cost, counters } } : {}),
      },
      rateLimit,
    };
  }

  /** What the application, and its owner across their applications, spent so far in the current budget periods. */
  async budgetSpent(principal: Pick<Principal, 'appId' | 'budget' | 'ownerBudget'>): Promise<BudgetSpending[]> {
    const counters = this.budgetCounters(principal, new Date());
    if (counters.length === 0) return [];
    const spent = await this.redis.mget(...counters.map((counter) => counter.key));
    return counters.map(({ key: _key, ...counter }, i) => ({ ...counter, spentNanos: Number(spent[i] ?? 0) }));
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

  /**
   * Frees the slot and corrects the reservations to what the task really used and cost (0 when it failed or never
   * ran), in one round trip. Answers the budget thresholds this settlement reached first in their period.
   */
  async settle(
    appId: string,
    admission: Admission | undefined,
    usedTokens: number,
    costNanos = 0,
  ): Promise<BudgetCrossing[]> {
    if (!admission?.leaseId && !admission?.reservedTokens && !admission?.budget) return [];
    const pipeline = this.redis.pipeline();
    if (admission.leaseId) pipeline.zrem(this.keys.concurrencyLeases(appId), admission.leaseId);
    if (admission.reservedTokens !== undefined)
      pipeline.incrby(this.keys.tokenUsage(appId), usedTokens - admission.reservedTokens);
    const { budget } = admission;
    if (budget) {
      SETTLE_BUDGET.queue(
        pipeline,
        budget.counters.flatMap((counter) => [counter.key, `${counter.key}:announced`]),
        [
          costNanos - budget.reservedNanos,
          ...budget.counters.flatMap((counter) => [counter.amountNanos, budgetKeyTtlSeconds(counter.period)]),
        ],
      );
    }
    const results = (await pipeline.exec()) ?? [];
    if (!budget) return [];
    const [error, crossed] = results[results.length - 1];
    if (error) throw error;
    return crossings(budget.counters, crossed as number[]);
  }

  /** The budget counters of the periods `now` is in: the application's, then its owner's. */
  private budgetCounters(principal: Pick<Principal, 'appId' | 'budget' | 'ownerBudget'>, now: Date): BudgetCounter[] {
    const counters: BudgetCounter[] = [];
    if (principal.budget) {
      const { amountNanos, period } = principal.budget;
      const periodId = budgetPeriodOf(period, now);
      const key = this.keys.budgetSpent(principal.appId, `${period}:${periodId}`);
      counters.push({ key, scope: 'application', period, periodId, amountNanos });
    }
    if (principal.ownerBudget) {
      const { amountNanos, period } = principal.ownerBudget.budget;
      const periodId = budgetPeriodOf(period, now);
      const key = this.keys.ownerBudgetSpent(principal.ownerBudget.userId, `${period}:${periodId}`);
      counters.push({ key, scope: 'user', period, periodId, amountNanos });
    }
    return counters;
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

/** A budget as it stands in its current period. */
export type BudgetSpending = Omit<BudgetCounter, 'key'> & { spentNanos: number };

/** The settle script's flat answer as crossings. */
function crossings(counters: BudgetCounter[], flat: number[]): BudgetCrossing[] {
  const crossed: BudgetCrossing[] = [];
  for (let i = 0; i + 2 < flat.length; i += 3) {
    const { key: _key, ...counter } = counters[flat[i] - 1];
    crossed.push({ ...counter, threshold: flat[i + 1] as 80 | 100, spentNanos: Number(flat[i + 2]) });
  }
  return crossed;
}

function budgetRefusal(budget: BudgetCounter, costNanos: number): string {
  const whose = budget.scope === 'application' ? 'this application' : 'your account, set by the operator,';
  const reset = budget.period === 'day' ? 'at 00:00 UTC' : 'on the first of the month, 00:00 UTC';
  return (
    `the ${budget.period === 'day' ? 'daily' : 'monthly'} budget of ${whose} (${formatNanos(budget.amountNanos)}) ` +
    `does not cover this request's cost of up to ${formatNanos(costNanos)} beside what was spent; it resets ${reset}`
  );
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
