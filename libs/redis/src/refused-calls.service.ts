import { LOGGER } from '@gateway/common';
import { BeforeApplicationShutdown, Inject, Injectable } from '@nestjs/common';
import { Logger } from 'pino';
import { GatewayRedis } from './gateway-redis.service';

/** A /v1 call refused before the queue (400, 401 with a known caller, 403, 429, …): it has no task record. */
export interface RefusedCall {
  /** Epoch ms. */
  at: number;
  status: number;
  code: string;
  message: string;
  method: string;
  /** The route, e.g. `/v1/chat/completions`. */
  route: string;
  requestId: string;
  /** The API key's id, or `signature` for a signed request; absent when the key itself was refused. */
  keyId?: string;
  model?: string;
  async: boolean;
  latencyMs: number;
}

/** An application's refused calls, newest first, and how many more it had than the list keeps. */
export interface RefusedCallsPage {
  data: RefusedCall[];
  /** Refused in all (within the retention), listed or dropped. */
  total: number;
  /** Dropped from the capped list: counted, no longer listed. */
  notListed: number;
}

/** Refused calls kept per application; older ones are dropped and only counted. */
export const REFUSALS_KEPT = 1_000;
/** How long an application's list and count stay after its last refusal. */
const RETENTION_SECONDS = 7 * 24 * 3600;
/** Refusals are written to Redis in one pipeline per this window, whatever their rate. */
const FLUSH_MS = 100;
/** Refusals waiting for the next flush, all applications together; past it they are only counted. */
const BUFFER_LIMIT = 10_000;

/**
 * The calls /v1 refused before the queue (docs/contracts.md, Redis keys `refused`/`refused-count`). Noting one is a
 * push onto an in-memory buffer: no database write, and one Redis round trip per FLUSH_MS for all of them. Each
 * application's list is capped at REFUSALS_KEPT (LTRIM), and its count keeps growing, so a flood costs a bounded
 * amount of Redis and the console can say how many refusals it does not list.
 */
@Injectable()
export class RefusedCalls implements BeforeApplicationShutdown {
  private buffer = new Map<string, { calls: RefusedCall[]; count: number }>();
  private buffered = 0;
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly redis: GatewayRedis,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  /** Notes a refusal, to be written with the others within FLUSH_MS. */
  note(appId: string, call: RefusedCall): void {
    let entry = this.buffer.get(appId);
    if (!entry) this.buffer.set(appId, (entry = { calls: [], count: 0 }));
    entry.count++;
    if (this.buffered < BUFFER_LIMIT && entry.calls.length < REFUSALS_KEPT) {
      entry.calls.push(call);
      this.buffered++;
    }
    this.timer ??= setTimeout(() => void this.flush(), FLUSH_MS);
  }

  /** Writes what is buffered: per application LPUSH, LTRIM, INCRBY and EXPIREs, all in one pipeline. */
  async flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.buffer.size === 0) return;
    const batch = this.buffer;
    this.buffer = new Map();
    this.buffered = 0;
    const pipeline = this.redis.client.pipeline();
    for (const [appId, { calls, count }] of batch) {
      const list = this.redis.keys.refusedCalls(appId);
      const counter = this.redis.keys.refusedCallCount(appId);
      if (calls.length > 0) {
        pipeline.lpush(list, ...calls.map((call) => JSON.stringify(call)));
        pipeline.ltrim(list, 0, REFUSALS_KEPT - 1);
        pipeline.expire(list, RETENTION_SECONDS);
      }
      pipeline.incrby(counter, count);
      pipeline.expire(counter, RETENTION_SECONDS);
    }
    try {
      await pipeline.exec();
    } catch (error) {
      // A lost batch of refusals is not worth holding the api up for; the calls were answered.
      this.logger.warn({ err: (error as Error).message, applications: batch.size }, 'refused calls not recorded');
    }
  }

  /** An application's refused calls, newest first, at most `limit`, after skipping `offset`. */
  async list(appId: string, limit: number, offset = 0): Promise<RefusedCallsPage> {
    const [[, rows], [, length], [, count]] = (await this.redis.client
      .multi()
      .lrange(this.redis.keys.refusedCalls(appId), offset, offset + limit - 1)
      .llen(this.redis.keys.refusedCalls(appId))
      .get(this.redis.keys.refusedCallCount(appId))
      .exec()) as [[null, string[]], [null, number], [null, string | null]];
    return {
      data: rows.map((row) => JSON.parse(row) as RefusedCall),
      total: Math.max(length, Number(count ?? 0)),
      notListed: Math.max(0, Number(count ?? 0) - length),
    };
  }

  /** Before the Redis connection closes (GatewayRedis, onApplicationShutdown). */
  async beforeApplicationShutdown(): Promise<void> {
    await this.flush();
  }
}
