import { AppConfig, GatewayError, SecretBox } from '@gateway/common';
import { ApplicationsRepository, UsersRepository } from '@gateway/db';
import { GatewayRedis, RedisKeys } from '@gateway/redis';
import { Injectable } from '@nestjs/common';
import Redis from 'ioredis';
import { LRUCache } from 'lru-cache';
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { Principal } from './principal';
import { createAuthCache, fetchAuthEntry } from './auth-cache';
import { principalOf } from './principal-factory';
import { ownerStanding } from './owner-standing';

const SIGNATURE_WINDOW_SECONDS = 300;

export interface SignedRequest {
  method: string;
  /** Path and query exactly as sent. */
  url: string;
  headers: Record<string, string | string[] | undefined>;
  rawBody?: Buffer;
}

/** The string a client signs: METHOD\nPATH\nTIMESTAMP\nNONCE\nhex SHA-256 of the body (docs/contracts.md). */
export function signingString(
  method: string,
  url: string,
  timestamp: string,
  nonce: string,
  body: Buffer | string = '',
): string {
  const bodyHash = createHash('sha256').update(body).digest('hex');
  return `${method.toUpperCase()}\n${url}\n${timestamp}\n${nonce}\n${bodyHash}`;
}

export function sign(secretKey: string, text: string): string {
  return createHmac('sha256', secretKey).update(text).digest('base64');
}

type Signer = { principal: Principal; secretKey: string } | { missing: true };

/** A signed request's application and headers, checked as far as they can be without the body. */
export interface SignedCaller {
  principal: Principal;
  secretKey: string;
  appId: string;
  timestamp: string;
  nonce: string;
  signature: string;
}

/**
 * "Advanced authentication": App ID + Secret Key HMAC signatures as an alternative to Bearer keys.
 * ±300 s around the server clock, each nonce accepted once (kept in Redis for the whole window), constant-time comparison.
 */
@Injectable()
export class SignatureAuthService {
  private readonly redis: Redis;
  private readonly keys: RedisKeys;
  private readonly signers: LRUCache<string, Signer>;

  constructor(
    config: AppConfig,
    redis: GatewayRedis,
    private readonly box: SecretBox,
    private readonly applications: ApplicationsRepository,
    private readonly users: UsersRepository,
  ) {
    this.redis = redis.client;
    this.keys = redis.keys;
    this.signers = createAuthCache<Signer>(config.AUTH_CACHE_TTL_MS, 10_000, async (appId) => {
      const app = await this.applications.findById(appId);
      if (!app || app.status !== 'active') return { missing: true };
      const owner = await ownerStanding(this.users, app);
      if (!owner.served) return { missing: true };
      return {
        principal: principalOf(app, 'signature', undefined, owner.budget),
        secretKey: this.box.open(app.secretKeyEnc),
      };
    });
  }

  /** Every check that needs no body: headers, clock skew and the application. Then verify() once the body is read. */
  async identify(request: SignedRequest): Promise<SignedCaller> {
    const appId = header(request, 'x-app-id');
    const timestamp = header(request, 'x-timestamp');
    const nonce = header(request, 'x-nonce');
    const signature = header(request, 'x-signature');
    if (!appId || !timestamp || !nonce || !signature) {
      throw new GatewayError(
        'MissingAuthorization',
        'a signed request needs X-App-Id, X-Timestamp, X-Nonce and X-Signature',
      );
    }
    if (!/^\d{1,12}$/.test(timestamp) || Math.abs(Date.now() / 1000 - Number(timestamp)) > SIGNATURE_WINDOW_SECONDS) {
      throw new GatewayError(
        'ExpiredTimestamp',
        `X-Timestamp must be Unix seconds within ${SIGNATURE_WINDOW_SECONDS} s of the server clock`,
      );
    }
    if (!/^[\w-]{8,128}$/.test(nonce))
      throw new GatewayError('InvalidSignature', 'X-Nonce must be 8-128 letters, digits, _ or -');
    if (!/^app_[0-9A-Za-z]{22}$/.test(appId)) throw invalid();
    const signer = await fetchAuthEntry(this.signers, appId);
    if ('missing' in signer) throw invalid();
    return { ...signer, appId, timestamp, nonce, signature };
  }

  /** The signature over the body, then the nonce spent: the caller identify() found is now authenticated. */
  async verify(request: SignedRequest, caller: SignedCaller): Promise<Principal> {
    const { secretKey, appId, timestamp, nonce, signature } = caller;
    const expected = Buffer.from(
      sign(secretKey, signingString(request.method, request.url, timestamp, nonce, request.rawBody)),
      'base64',
    );
    const given = Buffer.from(signature, 'base64');
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw invalid();
    // Only a valid signature spends its nonce, so nobody can burn another client's nonces.
    const fresh = await this.redis.set(this.keys.nonce(appId, nonce), '1', 'EX', 2 * SIGNATURE_WINDOW_SECONDS, 'NX');
    if (fresh !== 'OK')
      throw new GatewayError('InvalidSignature', 'this X-Nonce was already used; send a new one with every request');
    return caller.principal;
  }

  async authenticate(request: SignedRequest): Promise<Principal> {
    return this.verify(request, await this.identify(request));
  }
}

function header(request: SignedRequest, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function invalid(): GatewayError {
  return new GatewayError(
    'InvalidSignature',
    'the request signature does not match; sign METHOD, path, timestamp, nonce and the body hash with the Secret Key',
  );
}
