import { AppConfig, GatewayError, LOGGER } from '@gateway/common';
import { ApiKeysRepository, ApplicationsRepository, UsersRepository } from '@gateway/db';
import { Inject, Injectable } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import { Logger } from 'pino';
import { hashApiKey, isWellFormedApiKey } from '../credentials/api-key';
import { createAuthCache, fetchAuthEntry } from './auth-cache';
import { Principal } from './principal';
import { ownerInGoodStanding } from './owner-standing';
import { principalOf } from './principal-factory';

type CacheEntry = { principal: Principal } | { invalid: true };

const INVALID_TTL_MS = 5_000;

/**
 * Bearer authentication served from memory (docs/contracts.md): a key is looked up in MongoDB at most once per
 * AUTH_CACHE_TTL_MS. An expired entry is served at once while it refreshes in the background, so the hot path never
 * waits on MongoDB for a known key, and while MongoDB is unreachable a key seen before keeps working.
 */
@Injectable()
export class ApiKeyAuthService {
  private readonly cache: LRUCache<string, CacheEntry>;

  constructor(
    config: AppConfig,
    private readonly apiKeys: ApiKeysRepository,
    private readonly applications: ApplicationsRepository,
    private readonly users: UsersRepository,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {
    this.cache = createAuthCache<CacheEntry>(config.AUTH_CACHE_TTL_MS, 50_000, async (hash, _stale, { options }) => {
      const entry = await this.lookUp(hash).catch((error) => {
        this.logger.error({ err: (error as Error).message }, 'API key look-up failed');
        throw error;
      });
      if ('invalid' in entry) options.ttl = INVALID_TTL_MS;
      return entry;
    });
  }

  async authenticate(authorization: string | undefined): Promise<Principal> {
    if (!authorization) {
      throw new GatewayError('MissingAuthorization', 'send the header "Authorization: Bearer <API key>"');
    }
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
    if (!match) throw new GatewayError('MissingAuthorization', 'the Authorization header must be "Bearer <API key>"');
    const key = match[1];
    if (!isWellFormedApiKey(key)) throw invalidKey();
    const entry = await fetchAuthEntry(this.cache, hashApiKey(key));
    if ('invalid' in entry) throw invalidKey();
    if (entry.principal.keyExpiresAt !== undefined && entry.principal.keyExpiresAt <= Date.now()) throw invalidKey();
    return entry.principal;
  }

  private async lookUp(hash: string): Promise<CacheEntry> {
    const key = await this.apiKeys.findByHash(hash);
    if (!key || key.status !== 'active') return { invalid: true };
    const app = await this.applications.findById(key.appId);
    if (!app || app.status !== 'active' || !(await ownerInGoodStanding(this.users, app))) return { invalid: true };
    return { principal: principalOf(app, key._id, key.expiresAt) };
  }
}

function invalidKey(): GatewayError {
  return new GatewayError('InvalidApiKey', 'the API key is not valid; create or rotate one in the console');
}
