import { AppConfig, GatewayError, LOGGER } from '@gateway/common';
import { ApiKeysRepository, ApplicationsRepository, UsersRepository } from '@gateway/db';
import { GatewayRedis } from '@gateway/redis';
import { Inject, Injectable } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import { Logger } from 'pino';
import { apiKeyForm, hashApiKey } from '../credentials/api-key';
import { ApiKeyChecksumKeys } from '../credentials/api-key-checksum-keys';
import { ApiKeyThrottle } from './api-key-throttle';
import { KeyLastUsed } from './key-last-used';
import { createAuthCache, fetchAuthEntry } from './auth-cache';
import { Principal } from './principal';
import { ownerStanding } from './owner-standing';
import { principalOf } from './principal-factory';

type CacheEntry = { principal: Principal } | { invalid: true };

const INVALID_TTL_MS = 5_000;

/**
 * Bearer authentication served from memory (docs/contracts.md): a key is looked up in MongoDB at most once per
 * AUTH_CACHE_TTL_MS. An expired entry is served at once while it refreshes in the background, so the hot path never
 * waits on MongoDB for a known key, and while MongoDB is unreachable a key seen before keeps working. A key whose
 * keyed checksum does not verify never reaches the cache nor MongoDB; one in the legacy CRC form is looked up only
 * while its address has failures to spare (ApiKeyThrottle).
 */
@Injectable()
export class ApiKeyAuthService {
  private readonly cache: LRUCache<string, CacheEntry>;
  private readonly throttle: ApiKeyThrottle;
  /** Legacy-form look-ups under way, so concurrent calls with one key reserve one failure, not one each. */
  private readonly legacyLookUps = new Map<string, Promise<CacheEntry>>();

  constructor(
    config: AppConfig,
    redis: GatewayRedis,
    private readonly apiKeys: ApiKeysRepository,
    private readonly applications: ApplicationsRepository,
    private readonly users: UsersRepository,
    @Inject(LOGGER) private readonly logger: Logger,
    private readonly checksumKeys: ApiKeyChecksumKeys,
    private readonly lastUsed: KeyLastUsed,
  ) {
    this.cache = createAuthCache<CacheEntry>(config.AUTH_CACHE_TTL_MS, 50_000, async (hash, _stale, { options }) => {
      const entry = await this.lookUp(hash).catch((error) => {
        this.logger.error({ err: (error as Error).message }, 'API key look-up failed');
        throw error;
      });
      if ('invalid' in entry) options.ttl = INVALID_TTL_MS;
      return entry;
    });
    this.throttle = new ApiKeyThrottle(redis);
  }

  /** `known` hears the application of a key that exists but is refused (expired past its grace). */
  async authenticate(
    authorization: string | undefined,
    address = 'unknown',
    known?: (appId: string) => void,
  ): Promise<Principal> {
    if (!authorization) {
      throw new GatewayError('MissingAuthorization', 'send the header "Authorization: Bearer <API key>"');
    }
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
    if (!match) throw new GatewayError('MissingAuthorization', 'the Authorization header must be "Bearer <API key>"');
    const key = match[1];
    const form = apiKeyForm(key, this.checksumKeys.verifying);
    if (form === 'malformed') throw invalidKey();
    const hash = hashApiKey(key);
    const entry = form === 'keyed' ? await fetchAuthEntry(this.cache, hash) : await this.legacyEntry(hash, address);
    if ('invalid' in entry) throw invalidKey();
    const now = Date.now();
    // The expiry travels with the cached principal: an expired key is refused at once, whatever the cache's age.
    if (entry.principal.keyExpiresAt !== undefined && entry.principal.keyExpiresAt <= now) {
      known?.(entry.principal.appId);
      throw invalidKey();
    }
    this.lastUsed.note(entry.principal.keyId, now);
    return entry.principal;
  }

  /** A legacy-form key: served from the cache when known, else looked up against its address's failures. */
  private legacyEntry(hash: string, address: string): Promise<CacheEntry> {
    const known = this.cache.peek(hash, { allowStale: true });
    if (known && !('invalid' in known)) return fetchAuthEntry(this.cache, hash);
    if (known && this.cache.getRemainingTTL(hash) > 0) return Promise.resolve(known);
    let pending = this.legacyLookUps.get(hash);
    if (!pending) {
      pending = this.throttle
        .reserved(
          address,
          () => fetchAuthEntry(this.cache, hash),
          (entry) => !('invalid' in entry),
        )
        .finally(() => this.legacyLookUps.delete(hash));
      this.legacyLookUps.set(hash, pending);
    }
    return pending;
  }

  private async lookUp(hash: string): Promise<CacheEntry> {
    const key = await this.apiKeys.findByHash(hash);
    if (!key || key.status !== 'active') return { invalid: true };
    const app = await this.applications.findById(key.appId);
    if (!app || app.status !== 'active') return { invalid: true };
    const owner = await ownerStanding(this.users, app);
    if (!owner.served) return { invalid: true };
    return { principal: principalOf(app, key._id, key.expiresAt, owner.budget) };
  }
}

function invalidKey(): GatewayError {
  return new GatewayError('InvalidApiKey', 'the API key is not valid; create or rotate one in the console');
}
