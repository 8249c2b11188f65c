import { AppConfig } from '@gateway/common';
import Redis, { RedisOptions } from 'ioredis';

/**
 * Connection options per role, as BullMQ asks for production: blocking worker connections never give up on a
 * command (maxRetriesPerRequest: null); producers fail fast instead of queueing commands while Redis is away.
 */
function workerConnectionOptions(): RedisOptions {
  return { maxRetriesPerRequest: null, enableReadyCheck: true };
}

function producerConnectionOptions(): RedisOptions {
  return { maxRetriesPerRequest: 1, enableOfflineQueue: false, enableReadyCheck: true };
}

export function createRedis(config: AppConfig, options: RedisOptions, name: string): Redis {
  return new Redis(config.REDIS_URL, { ...options, connectionName: name, lazyConnect: false });
}

/** BullMQ connection settings from REDIS_URL for a producer or a worker. */
export function bullConnection(config: AppConfig, role: 'producer' | 'worker'): RedisOptions {
  const url = new URL(config.REDIS_URL);
  return {
    host: url.hostname,
    port: Number(url.port || 6379),
    username: url.username ? decodeURIComponent(url.username) : undefined,
    password: url.password ? decodeURIComponent(url.password) : undefined,
    db: url.pathname.length > 1 ? Number(url.pathname.slice(1)) : 0,
    tls: url.protocol === 'rediss:' ? {} : undefined,
    ...(role === 'worker' ? workerConnectionOptions() : producerConnectionOptions()),
  };
}

/**
 * Ends a connection: QUIT while Redis answers, so that replies on their way are still read, waiting at most
 * `quitWaitMs`; dropped at once otherwise, since a QUIT queued behind commands waiting to reconnect would wait for
 * Redis to come back.
 */
export async function closeRedis(client: Pick<Redis, 'status' | 'quit' | 'disconnect'>, quitWaitMs = 2_000) {
  if (client.status === 'ready') {
    let timer: NodeJS.Timeout | undefined;
    const waited = new Promise<void>((resolve) => (timer = setTimeout(resolve, quitWaitMs)));
    await Promise.race([client.quit().catch(() => undefined), waited]);
    clearTimeout(timer);
  }
  client.disconnect();
}
