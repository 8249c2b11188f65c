import { AppConfig, LOGGER, SerializedError } from '@gateway/common';
import { Inject, Injectable } from '@nestjs/common';
import Redis from 'ioredis';
import { Logger } from 'pino';
import { GatewayRedis } from './gateway-redis.service';
import { createRedis } from './redis-connections';
import type { RedisKeys } from './redis-keys';

/**
 * One entry of a task's stream: a chunk (JSON text, sent as one SSE event, named by `event` when the format names
 * its events, as the Responses API does), the end, or the error that ended it.
 */
/** `route` on a stream's first chunk names the catalog route relaying it (the answer's X-Gateway-Route). */
export type StreamEntry =
  { chunk: string; event?: string; route?: string } | { done: true } | { error: SerializedError };

/** Long enough for any answer; XADD trims older entries past it, so a stream never grows without bound. */
const MAX_ENTRIES = 10_000;
/** A stream outlives its task by this long, for a reader that attaches late; then Redis drops it. */
const STREAM_TTL_S = 300;
/** A reader waits this long for the next entry before checking on the task again. */
const READ_BLOCK_MS = 5_000;

/**
 * Streamed answers (docs/architecture.md): the worker appends chunks to the Redis Stream `stream:{taskId}` (bounded,
 * expiring), the api instance holding the client reads it from the start. Each append also tells the worker
 * whether the client went away, in the same round trip, so generation stops without another channel.
 */
@Injectable()
export class ChunkStreams {
  private readonly redis: Redis;
  private readonly keys: RedisKeys;

  constructor(
    private readonly config: AppConfig,
    redis: GatewayRedis,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {
    this.redis = redis.client;
    this.keys = redis.keys;
  }

  /** Appends an entry; answers whether the reader asked to stop. */
  async append(taskId: string, entry: StreamEntry): Promise<{ cancelled: boolean }> {
    const key = this.streamKey(taskId);
    const results = await this.redis
      .multi()
      .xadd(key, 'MAXLEN', '~', MAX_ENTRIES, '*', 'e', JSON.stringify(entry))
      .expire(key, STREAM_TTL_S)
      .exists(this.cancelKey(taskId))
      .exec();
    const failure = results?.find(([error]) => error)?.[0];
    if (failure) throw failure;
    return { cancelled: results?.[2]?.[1] === 1 };
  }

  /** The client left: the worker stops generating at its next append. */
  async cancel(taskId: string): Promise<void> {
    await this.redis.set(this.cancelKey(taskId), '1', 'EX', STREAM_TTL_S);
  }

  /**
   * Reads the stream from its start until it ends. A blocking read needs a connection of its own: each reader
   * gets one for the life of its stream and closes it after (streams are few next to plain requests).
   */
  async *read(taskId: string, signal: AbortSignal): AsyncGenerator<StreamEntry> {
    const key = this.streamKey(taskId);
    const connection = createRedis(this.config, { maxRetriesPerRequest: 1 }, `stream:${taskId}`, this.logger);
    const stop = () => connection.disconnect();
    signal.addEventListener('abort', stop, { once: true });
    try {
      let lastId = '0';
      while (!signal.aborted) {
        const result = await connection.xread('COUNT', 100, 'BLOCK', READ_BLOCK_MS, 'STREAMS', key, lastId);
        for (const [, entries] of result ?? []) {
          for (const [id, fields] of entries) {
            lastId = id;
            const entry = JSON.parse(fields[1]) as StreamEntry;
            yield entry;
            if (!('chunk' in entry)) return;
          }
        }
      }
    } finally {
      signal.removeEventListener('abort', stop);
      connection.disconnect();
    }
  }

  private streamKey(taskId: string): string {
    return this.keys.taskStream(taskId);
  }

  private cancelKey(taskId: string): string {
    return this.keys.streamCancel(taskId);
  }
}
