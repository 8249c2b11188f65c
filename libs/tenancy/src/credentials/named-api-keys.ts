import { GatewayError } from '@gateway/common';
import { MAX_API_KEYS_PER_APPLICATION } from '@gateway/contracts';
import { ApiKeyRecord, ApiKeysRepository } from '@gateway/db';
import { Injectable } from '@nestjs/common';
import { AuditActor, auditedKeys, AuditTrail } from '../audit/audit-trail';
import { presentKey } from './api-key';
import { CredentialsService } from './credentials.service';

/** The application whose keys change, as the audit record names it. */
export interface KeyOwner {
  appId: string;
  /** Absent for an application the CLI created without an account. */
  ownerId?: string;
}

/**
 * An application's named API keys, for the console and the operator CLI alike: listed, created (at most
 * MAX_API_KEYS_PER_APPLICATION live at once), revoked one by one, each change audited. Callers check who may.
 */
@Injectable()
export class NamedApiKeys {
  constructor(
    private readonly apiKeys: ApiKeysRepository,
    private readonly credentials: CredentialsService,
    private readonly audit: AuditTrail,
  ) {}

  async list(appId: string) {
    return (await this.apiKeys.listForApp(appId)).map(presentKey);
  }

  /** Another named key, with an optional expiry; the key itself is in this answer only. */
  async create({ appId, ownerId }: KeyOwner, input: { name: string; expiresAt?: Date }, actor: AuditActor) {
    if ((await this.apiKeys.countLive(appId)) >= MAX_API_KEYS_PER_APPLICATION) {
      throw new GatewayError(
        'CeilingExceeded',
        `an application may hold at most ${MAX_API_KEYS_PER_APPLICATION} live keys; revoke one first`,
      );
    }
    const keysBefore = auditedKeys(await this.apiKeys.listForApp(appId));
    const issued = await this.credentials.issueNamedApiKey(appId, input.name, input.expiresAt);
    const keys = await this.apiKeys.listForApp(appId);
    await this.audit.record(actor, {
      action: 'key.create',
      appId,
      ownerId,
      changes: { api_keys: { before: keysBefore, after: auditedKeys(keys) } },
    });
    return { ...presentKey(readBack(keys, issued.id)), api_key: issued.apiKey };
  }

  /** Revokes one key; the others keep working. Every api instance refuses it within AUTH_CACHE_TTL_MS. */
  async revoke({ appId, ownerId }: KeyOwner, keyId: string, actor: AuditActor) {
    const keysBefore = auditedKeys(await this.apiKeys.listForApp(appId));
    if (!(await this.apiKeys.revoke(appId, keyId))) throw keyNotFound(keyId);
    const keys = await this.apiKeys.listForApp(appId);
    await this.audit.record(actor, {
      action: 'key.revoke',
      appId,
      ownerId,
      changes: { api_keys: { before: keysBefore, after: auditedKeys(keys) } },
    });
    return presentKey(readBack(keys, keyId));
  }

  /** A key of the application that still authenticates, for a rotation of that key alone. */
  async live(appId: string, keyId: string): Promise<ApiKeyRecord> {
    const key = await this.apiKeys.findForApp(appId, keyId);
    if (!key || presentKey(key).status !== 'active') throw keyNotFound(keyId);
    return key;
  }
}

function readBack(keys: ApiKeyRecord[], keyId: string): ApiKeyRecord {
  const key = keys.find((candidate) => candidate._id === keyId);
  if (!key) throw new Error(`key ${keyId} was not read back`);
  return key;
}

function keyNotFound(keyId: string): GatewayError {
  return new GatewayError('NotFound', `no live key ${keyId} in this application`, { param: 'key_id' });
}
