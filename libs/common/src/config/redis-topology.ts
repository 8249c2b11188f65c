export interface RedisNode {
  host: string;
  port: number;
}

/**
 * How the gateway reaches Redis (docs/operations.md#redis-sentinel-and-redis-cluster): one server at REDIS_URL, a
 * master found through Sentinel, or a Redis Cluster. REDIS_URL still carries the username, password and TLS of the
 * data nodes under Sentinel and Cluster; only its host and port are then unused.
 */
export type RedisTopology =
  | { mode: 'single' }
  | { mode: 'sentinel'; sentinels: RedisNode[]; masterName: string; sentinelPassword?: string }
  | { mode: 'cluster'; nodes: RedisNode[] };

export interface RedisTopologySettings {
  REDIS_URL: string;
  REDIS_SENTINELS?: string;
  REDIS_SENTINEL_NAME?: string;
  REDIS_SENTINEL_PASSWORD?: string;
  REDIS_CLUSTER_NODES?: string;
}

const HOST_PORT = /^([^\s:,[\]]+|\[[0-9a-fA-F:.]+\]):(\d{1,5})$/;

/** The topology the settings name, or the problems that stop them naming one. */
export function readRedisTopology(settings: RedisTopologySettings): { topology: RedisTopology; problems: string[] } {
  const sentinels = isSet(settings.REDIS_SENTINELS) ? settings.REDIS_SENTINELS : undefined;
  const clusterNodes = isSet(settings.REDIS_CLUSTER_NODES) ? settings.REDIS_CLUSTER_NODES : undefined;
  const single = { topology: { mode: 'single' } as RedisTopology, problems: [] as string[] };
  if (sentinels && clusterNodes)
    return { ...single, problems: ['REDIS_SENTINELS and REDIS_CLUSTER_NODES are both set; set one of them'] };
  if (!sentinels && isSet(settings.REDIS_SENTINEL_NAME))
    return { ...single, problems: ['REDIS_SENTINEL_NAME is set without REDIS_SENTINELS; list the sentinels too'] };
  if (sentinels) {
    const { nodes, problems } = readNodes('REDIS_SENTINELS', sentinels);
    if (!isSet(settings.REDIS_SENTINEL_NAME))
      problems.push('REDIS_SENTINEL_NAME must be set with REDIS_SENTINELS: the master name the sentinels monitor');
    const sentinelPassword = isSet(settings.REDIS_SENTINEL_PASSWORD) ? settings.REDIS_SENTINEL_PASSWORD : undefined;
    const masterName = settings.REDIS_SENTINEL_NAME?.trim() ?? '';
    return { topology: { mode: 'sentinel', sentinels: nodes, masterName, sentinelPassword }, problems };
  }
  if (clusterNodes) {
    const { nodes, problems } = readNodes('REDIS_CLUSTER_NODES', clusterNodes);
    if (redisDb(settings.REDIS_URL) !== 0)
      problems.push('REDIS_URL names a database other than 0, which Redis Cluster does not have; drop its /<db>');
    return { topology: { mode: 'cluster', nodes }, problems };
  }
  return single;
}

function readNodes(setting: string, value: string): { nodes: RedisNode[]; problems: string[] } {
  const nodes: RedisNode[] = [];
  const problems: string[] = [];
  for (const item of value.split(',').map((part) => part.trim())) {
    const match = HOST_PORT.exec(item);
    const port = match ? Number(match[2]) : 0;
    if (!match || port < 1 || port > 65535) {
      problems.push(`${setting} must be a comma-separated list of host:port; "${item}" is not`);
      continue;
    }
    nodes.push({ host: match[1].replace(/^\[|\]$/g, ''), port });
  }
  return { nodes, problems };
}

/** The database a Redis URL names (`redis://host:6379/2` → 2), 0 when it names none. */
export function redisUrlDb(url: URL): number {
  return url.pathname.length > 1 ? Number(url.pathname.slice(1)) : 0;
}

function redisDb(url: string): number {
  try {
    return redisUrlDb(new URL(url));
  } catch {
    return 0;
  }
}

function isSet(value: string | undefined): value is string {
  return value !== undefined && value.trim() !== '';
}
