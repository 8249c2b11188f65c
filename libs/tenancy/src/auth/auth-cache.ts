import { GatewayError } from '@gateway/common';
import { LRUCache } from 'lru-cache';

/**
 * A credential cache for the hot path: an expired entry is served at once while it refreshes in the background,
 * and when MongoDB cannot be reached a known entry keeps serving instead of failing.
 */
export function createAuthCache<V extends object>(
  ttlMs: number,
  max: number,
  fetchMethod: LRUCache.Fetcher<string, V>,
): LRUCache<string, V> {
  return new LRUCache<string, V>({
    max,
    ttl: Math.max(ttlMs, 1),
    allowStale: true,
    allowStaleOnFetchRejection: true,
    noDeleteOnFetchRejection: true,
    fetchMethod,
  });
}

/** The cached or fetched entry; every fetch answers one, so none means the database failed with nothing to fall back on. */
export async function fetchAuthEntry<V extends object>(cache: LRUCache<string, V>, key: string): Promise<V> {
  const entry = await cache.fetch(key);
  if (!entry) throw new GatewayError('NotReady', 'authentication is unavailable right now; retry shortly');
  return entry;
}
