import { AppConfig, RedisNode, redisUrlDb } from '@gateway/common';
import Redis, { Cluster, RedisOptions } from 'ioredis';
import type { Logger } from 'pino';
import { reportConnectionErrors } from './connection-errors';

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

/**
 * A connection to the configured Redis (config.redisTopology): one server, the master Sentinel names, or a Cluster.
 * Typed as Redis: an ioredis Cluster answers the same commands, scripts, pipelines, MULTI and pub/sub, each sent to
 * the node of its keys (every key of the gateway is on one slot there: AppConfig.redisKeyPrefix).
 */
export function createRedis(config: AppConfig, options: RedisOptions, name: string, logger: Logger): Redis {
  const client = connect(config, options, name);
  reportConnectionErrors(client, name, logger);
  return client;
}

function connect(config: AppConfig, options: RedisOptions, name: string): Redis {
  const topology = config.redisTopology ?? { mode: 'single' };
  if (topology.mode === 'single')
    return new Redis(config.REDIS_URL, { ...options, connectionName: name, lazyConnect: false });
  if (topology.mode === 'cluster') return createCluster(config, topology.nodes, options, name) as unknown as Redis;
  return new Redis({ ...nodeOptions(config), ...options, connectionName: name, lazyConnect: false });
}

/**
 * BullMQ connection settings for a producer or a worker: options for one server or Sentinel, from which BullMQ makes
 * its own connections; on a Cluster a connection, which BullMQ only borrows: whoever asked for it closes it.
 */
export function bullConnection(config: AppConfig, role: 'producer' | 'worker'): RedisOptions | Cluster {
  const roleOptions = role === 'worker' ? workerConnectionOptions() : producerConnectionOptions();
  const topology = config.redisTopology ?? { mode: 'single' };
  if (topology.mode === 'cluster') return createCluster(config, topology.nodes, roleOptions, `bullmq:${role}`);
  return { ...nodeOptions(config), ...roleOptions };
}

/**
 * Where and how to reach a data node: host, port and database from REDIS_URL, or the sentinels that name the master;
 * username, password and TLS from REDIS_URL in every topology.
 */
function nodeOptions(config: AppConfig): RedisOptions {
  const url = new URL(config.REDIS_URL);
  const tls = url.protocol === 'rediss:' ? {} : undefined;
  const credentials = {
    username: url.username ? decodeURIComponent(url.username) : undefined,
    password: url.password ? decodeURIComponent(url.password) : undefined,
    tls,
  };
  const topology = config.redisTopology ?? { mode: 'single' };
  if (topology.mode === 'sentinel') {
    return {
      ...credentials,
      sentinels: topology.sentinels,
      name: topology.masterName,
      sentinelPassword: topology.sentinelPassword,
      enableTLSForSentinelMode: tls !== undefined,
      db: redisUrlDb(url),
    };
  }
  return { ...credentials, host: url.hostname, port: Number(url.port || 6379), db: redisUrlDb(url) };
}

function createCluster(config: AppConfig, nodes: RedisNode[], options: RedisOptions, name: string): Cluster {
  const { host: _host, port: _port, db: _db, ...credentials } = nodeOptions(config);
  return new Cluster(nodes, {
    redisOptions: { ...credentials, ...options, connectionName: name },
    enableReadyCheck: true,
    enableOfflineQueue: options.enableOfflineQueue ?? true,
    lazyConnect: false,
  });
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

/** Closes what bullConnection made: a Cluster connection (options need no closing). */
export async function closeBullConnection(connection: unknown): Promise<void> {
  if (connection instanceof Cluster) await closeRedis(connection as unknown as Redis);
}
