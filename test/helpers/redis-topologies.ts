import { ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import Redis from 'ioredis';
// eslint-disable-next-line @typescript-eslint/no-require-imports
const services = require('../../scripts/services');

/** Redis servers a suite started for itself, and the settings that reach them. */
export interface RedisTopologyUnderTest {
  env: Record<string, string>;
  /** The data nodes' ports (the cluster's masters, or Sentinel's master). */
  ports: number[];
  stop(): Promise<void>;
}

/**
 * A Redis Cluster of `masters` masters and no replicas, from Debian's redis-server on free 127.0.0.1 ports, made
 * with `redis-cli --cluster create`; resolves once every node reports cluster_state:ok.
 */
export async function startRedisCluster(masters = 3): Promise<RedisTopologyUnderTest> {
  const dir = mkdtempSync(join(tmpdir(), 'gateway-redis-cluster-'));
  const children: ChildProcess[] = [];
  const ports: number[] = [];
  try {
    for (let i = 0; i < masters; i++) {
      // The cluster bus needs a port of its own; by default port + 10000, which may not exist for a high free port.
      const [port, busPort] = [await services.freePort(), await services.freePort()];
      const nodeDir = join(dir, `node-${i}`);
      const extraArgs = ['--cluster-enabled', 'yes', '--cluster-port', String(busPort)];
      extraArgs.push('--cluster-config-file', join(nodeDir, 'nodes.conf'));
      children.push(await services.startRedis({ port, dir: nodeDir, logFile: join(dir, `node-${i}.log`), extraArgs }));
      ports.push(port);
    }
    const nodes = ports.map((port) => `127.0.0.1:${port}`);
    const redisCli = join(services.ensureRedis(), '..', 'redis-cli');
    await promisify(execFile)(redisCli, ['--cluster', 'create', ...nodes, '--cluster-replicas', '0', '--cluster-yes']);
    await Promise.all(ports.map((port) => untilClusterOk(port)));
    return {
      env: { REDIS_CLUSTER_NODES: nodes.join(','), REDIS_URL: `redis://127.0.0.1:${ports[0]}` },
      ports,
      stop: () => stopAll(children, dir),
    };
  } catch (error) {
    await stopAll(children, dir);
    throw error;
  }
}

/** One Redis master watched by one Sentinel (quorum 1) under the master name `gateway`. */
export async function startRedisSentinel(): Promise<RedisTopologyUnderTest> {
  const dir = mkdtempSync(join(tmpdir(), 'gateway-redis-sentinel-'));
  const children: ChildProcess[] = [];
  try {
    const [port, sentinelPort] = [await services.freePort(), await services.freePort()];
    children.push(await services.startRedis({ port, dir: join(dir, 'master'), logFile: join(dir, 'master.log') }));
    // Sentinel rewrites its configuration file, so it gets one of its own.
    const config = join(dir, 'sentinel.conf');
    const lines = [
      `port ${sentinelPort}`,
      'bind 127.0.0.1',
      `dir ${dir}`,
      `sentinel monitor gateway 127.0.0.1 ${port} 1`,
    ];
    writeFileSync(config, `${lines.join('\n')}\n`);
    const sentinel = spawn(services.ensureRedis(), [config, '--sentinel'], { stdio: 'ignore' });
    children.push(sentinel);
    await services.waitFor(() => services.redisAnswers(sentinelPort), `redis sentinel on ${sentinelPort}`, sentinel);
    return {
      env: {
        REDIS_SENTINELS: `127.0.0.1:${sentinelPort}`,
        REDIS_SENTINEL_NAME: 'gateway',
        // Only credentials and TLS are read from it under Sentinel: this port is closed, so the master must come
        // from the sentinel.
        REDIS_URL: `redis://127.0.0.1:${await services.freePort()}`,
      },
      ports: [port],
      stop: () => stopAll(children, dir),
    };
  } catch (error) {
    await stopAll(children, dir);
    throw error;
  }
}

async function untilClusterOk(port: number): Promise<void> {
  const node = new Redis(port, '127.0.0.1', { maxRetriesPerRequest: 1 });
  try {
    const deadline = Date.now() + 30_000;
    while (!/cluster_state:ok/.test(await node.cluster('INFO'))) {
      if (Date.now() > deadline) throw new Error(`the Redis Cluster node on ${port} never reached cluster_state:ok`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  } finally {
    node.disconnect();
  }
}

async function stopAll(children: ChildProcess[], dir: string): Promise<void> {
  await Promise.all(children.map((child) => services.stop(child)));
  rmSync(dir, { recursive: true, force: true });
}
