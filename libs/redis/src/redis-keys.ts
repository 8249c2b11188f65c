import { utcDay } from '@gateway/common';
import { createHash } from 'node:crypto';

/**
 * Every Redis key and pub/sub channel the gateway uses (docs/contracts.md#redis-keys), each under REDIS_PREFIX so
 * several deployments can share one Redis (`{REDIS_PREFIX}` on a Redis Cluster: AppConfig.redisKeyPrefix). A key
 * string is the address of data a running Redis already holds: changing one strands that data, so
 * redis-keys.spec.ts pins each of them.
 */
export class RedisKeys {
  constructor(private readonly prefix: string) {}

  /** The pub/sub channel one api instance hears its waiting tasks' outcomes on (docs/decisions/reply-channel.md). */
  replyChannel(instanceId: string): string {
    return `${this.prefix}:reply:${instanceId}`;
  }

  /** A finished task's outcome, kept until its MongoDB record is written. */
  outcome(taskId: string): string {
    return `${this.prefix}:outcome:${taskId}`;
  }

  /** A finished task's record fields as its delivery filed them (fileRecord), kept until the record is written. */
  filedRecord(taskId: string): string {
    return `${this.prefix}:record:${taskId}`;
  }

  /** Stream of delivered tasks whose MongoDB record is not written yet (DeliveredTasks), read by the group `writers`. */
  recordStream(): string {
    return `${this.prefix}:records`;
  }

  /** Before the record stream: task id → filed record, moved to the stream by the first worker of this version. */
  legacyPendingRecords(): string {
    return `${this.prefix}:records:pending`;
  }

  /** Before the record stream: the same tasks scored by when they were due; deleted once the hash is moved. */
  legacyRecordsDue(): string {
    return `${this.prefix}:records:due`;
  }

  /** Usage counted at delivery and not yet folded into MongoDB: `<app>|<model>|<day>|<counter>` → amount. */
  usagePending(): string {
    return `${this.prefix}:usage:pending`;
  }

  /** The batch of usage being folded into MongoDB, renamed from usagePending; it stays until the fold completes. */
  usageFolding(): string {
    return `${this.prefix}:usage:folding`;
  }

  /** The random id of the batch in usageFolding; every roll-up it reaches remembers it, so repeating the fold is a no-op. */
  usageFoldId(): string {
    return `${this.prefix}:usage:fold-id`;
  }

  /** Held by the one process folding usage (or reconciling a day) at a time. */
  usageFoldLease(): string {
    return `${this.prefix}:usage:fold-lease`;
  }

  /**
   * Which task answers an application's Idempotency-Key. The caller's key is hashed: it may be any printable string,
   * and the hash keeps Redis keys short and printable.
   */
  idempotency(appId: string, idempotencyKey: string): string {
    return `${this.prefix}:idem:${appId}:${createHash('sha256').update(idempotencyKey).digest('base64url')}`;
  }

  /** The Redis Stream a streamed task's chunks are appended to. */
  taskStream(taskId: string): string {
    return `${this.prefix}:stream:${taskId}`;
  }

  /** Set when a streamed task's client has left, so the worker stops generating. */
  streamCancel(taskId: string): string {
    return `${this.prefix}:stream-cancel:${taskId}`;
  }

  /** The leases of one counting semaphore (LeaseSemaphore), by its name: see routeSemaphore. */
  semaphore(name: string): string {
    return `${this.prefix}:sem:${name}`;
  }

  /** When the next call of a route with max_rps may start (RoutePacer), in µs on Redis's clock. */
  routePace(routeKey: string): string {
    return `${this.prefix}:pace:route:${routeKey}`;
  }

  /** Calls an application made on the UTC day of `at`. */
  dailyCalls(appId: string, at: Date): string {
    return this.limit(appId, `day:${utcDay(at)}`);
  }

  /** Requests an application made in the UTC minute of `at` (a fixed window). */
  minuteRequests(appId: string, at: Date): string {
    return this.limit(appId, `rpm:${Math.floor(at.getTime() / 60_000)}`);
  }

  /** An application's tasks in flight: lease ids scored by their expiry. */
  concurrencyLeases(appId: string): string {
    return this.limit(appId, 'conc');
  }

  /** An application's running token total: reservations, corrected to real usage as tasks end. */
  tokenUsage(appId: string): string {
    return this.limit(appId, 'tokens');
  }

  /**
   * What an application spent in one budget period (`day:YYYY-MM-DD` or `month:YYYY-MM`, UTC), in nanos:
   * reservations of tasks in flight, corrected to their real cost as they end.
   */
  budgetSpent(appId: string, period: string): string {
    return this.limit(appId, `budget:${period}`);
  }

  /**
   * What all of one user's applications spent in one budget period. The admission script reads it beside the
   * application's limit keys, whose `{appId}` tag differs: on a Redis Cluster the prefix's own tag (`{gw}`), first
   * in every key, is what puts them on one slot (AppConfig.redisKeyPrefix).
   */
  ownerBudgetSpent(userId: string, period: string): string {
    return this.limit(`user:${userId}`, `budget:${period}`);
  }

  /** A signed request's X-Nonce, remembered so it cannot be spent twice. */
  nonce(appId: string, nonce: string): string {
    return `${this.prefix}:nonce:{${appId}}:${nonce}`;
  }

  /** The counter numbering one day's records of a feed (tasks, billing, webhooks) for one application. */
  feedCounter(feed: string, appId: string, day: string): string {
    return `${this.prefix}:feed:${feed}:${appId}:${day}`;
  }

  /** An application's /v1 calls refused before the queue, newest first, capped (RefusedCalls). */
  refusedCalls(appId: string): string {
    return `${this.prefix}:refused:{${appId}}`;
  }

  /** How many calls of an application were refused in all, listed or dropped from refusedCalls. */
  refusedCallCount(appId: string): string {
    return `${this.prefix}:refused-count:{${appId}}`;
  }

  /** A console session, under the SHA-256 of its token, so a Redis dump reveals no usable cookie. */
  consoleSession(token: string): string {
    return `${this.prefix}:session:${createHash('sha256').update(token).digest('hex')}`;
  }

  /** Failed console sign-ins for one email. */
  loginFailures(email: string): string {
    return `${this.prefix}:login-failures:${email}`;
  }

  /** Failed console sign-ins from one client address. */
  loginFailuresFrom(address: string): string {
    return `${this.prefix}:login-failures-from:${address}`;
  }

  /** Failed console sign-ins for one email from one client address: the throttle the account's owner never shares. */
  loginFailuresPair(email: string, address: string): string {
    return `${this.prefix}:login-failures-pair:${address}:${email}`;
  }

  /** Epoch ms before which an email with many failed sign-ins takes no attempt from an address not known to it. */
  loginDelayUntil(email: string): string {
    return `${this.prefix}:login-delay:${email}`;
  }

  /** Set when an email signs in from an address: the address is then spared the email's delay. */
  loginKnownAddress(email: string, address: string): string {
    return `${this.prefix}:login-known:${address}:${email}`;
  }

  /** Failed API-key authentications from one client address. */
  apiKeyFailuresFrom(address: string): string {
    return `${this.prefix}:api-key-failures-from:${address}`;
  }

  /** One of the keys BullMQ keeps for a queue under the same prefix (`wait`, `active`, …); BullMQ writes them itself. */
  bullmq(queue: string, part: string): string {
    return `${this.prefix}:${queue}:${part}`;
  }

  /**
   * One application's limit key. The `{appId}` braces are part of the stored key names and stay; on a Redis Cluster
   * the prefix is a hash tag itself (`{gw}`), which comes first and so decides the slot of every key.
   */
  private limit(appId: string, part: string): string {
    return `${this.prefix}:lim:{${appId}}:${part}`;
  }
}

/** The semaphore name of one route's max_concurrency slots, shared by every worker. */
export function routeSemaphore(routeKey: string): string {
  return `route:${routeKey}`;
}
