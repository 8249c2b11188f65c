import { loadConfig } from './app-config';

const MASTER_KEY = 'c'.repeat(64);

describe('Redis topology settings', () => {
  it('uses REDIS_URL alone by default, with REDIS_PREFIX as the key prefix', () => {
    const config = loadConfig({ MASTER_KEY, REDIS_PREFIX: 'tenant' });
    expect(config.redisTopology).toEqual({ mode: 'single' });
    expect(config.redisKeyPrefix).toBe('tenant');
  });

  it('reads a Sentinel list, master name and sentinel password', () => {
    const config = loadConfig({
      MASTER_KEY,
      REDIS_SENTINELS: 'sentinel-0:26379, 10.0.0.7:26380,[fd00::1]:26379',
      REDIS_SENTINEL_NAME: 'gateway',
      REDIS_SENTINEL_PASSWORD: 's3cret',
    });
    expect(config.redisTopology).toEqual({
      mode: 'sentinel',
      sentinels: [
        { host: 'sentinel-0', port: 26379 },
        { host: '10.0.0.7', port: 26380 },
        { host: 'fd00::1', port: 26379 },
      ],
      masterName: 'gateway',
      sentinelPassword: 's3cret',
    });
    expect(config.redisKeyPrefix).toBe('gw');
  });

  it('reads Cluster seed nodes and puts every key under the hash tag of REDIS_PREFIX', () => {
    const config = loadConfig({ MASTER_KEY, REDIS_CLUSTER_NODES: 'redis-0:6379,redis-1:6379' });
    expect(config.redisTopology).toEqual({
      mode: 'cluster',
      nodes: [
        { host: 'redis-0', port: 6379 },
        { host: 'redis-1', port: 6379 },
      ],
    });
    expect(config.REDIS_PREFIX).toBe('gw');
    expect(config.redisKeyPrefix).toBe('{gw}');
  });

  it('refuses settings that name no single topology, listing each problem', () => {
    expect(() => loadConfig({ MASTER_KEY, REDIS_SENTINELS: 'a:1', REDIS_CLUSTER_NODES: 'b:2' })).toThrow(
      /REDIS_SENTINELS and REDIS_CLUSTER_NODES are both set; set one of them/,
    );
    expect(() => loadConfig({ MASTER_KEY, REDIS_SENTINELS: 'a:26379' })).toThrow(
      /REDIS_SENTINEL_NAME must be set with REDIS_SENTINELS/,
    );
    expect(() => loadConfig({ MASTER_KEY, REDIS_SENTINEL_NAME: 'gateway' })).toThrow(
      /REDIS_SENTINEL_NAME is set without REDIS_SENTINELS/,
    );
    const badNodes = () => loadConfig({ MASTER_KEY, REDIS_CLUSTER_NODES: 'redis-0,redis-1:70000' });
    expect(badNodes).toThrow(/REDIS_CLUSTER_NODES must be a comma-separated list of host:port; "redis-0" is not/);
    expect(badNodes).toThrow(/"redis-1:70000" is not/);
    expect(() =>
      loadConfig({ MASTER_KEY, REDIS_CLUSTER_NODES: 'redis-0:6379', REDIS_URL: 'redis://redis-0:6379/2' }),
    ).toThrow(/REDIS_URL names a database other than 0, which Redis Cluster does not have/);
  });

  it('takes an empty setting as unset', () => {
    const config = loadConfig({ MASTER_KEY, REDIS_SENTINELS: '', REDIS_CLUSTER_NODES: ' ' });
    expect(config.redisTopology).toEqual({ mode: 'single' });
  });
});
