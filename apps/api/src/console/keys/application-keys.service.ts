import { GatewayError } from '@gateway/common';
import { ApiKeysRepository } from '@gateway/db';
import { AuditActor, auditedKeys, AuditTrail, CredentialsService, NamedApiKeys } from '@gateway/tenancy';
import { Injectable } from '@nestjs/common';
import { applicationNotFound, OwnedApplications } from '../applications/owned-applications';

/** An owned application's API keys and Secret Key: list, add, rotate, revoke, reset. */
@Injectable()
export class ApplicationKeys {
  constructor(
    private readonly owned: OwnedApplications,
    private readonly apiKeys: ApiKeysRepository,
    private readonly credentials: CredentialsService,
    private readonly namedKeys: NamedApiKeys,
    private readonly audit: AuditTrail,
  ) {}

  /** Rotates every live key of the application, or only `keyId` (docs/contracts.md, named keys and rotation). */
  async rotate(appId: string, ownerId: string, graceSeconds: number, actor: AuditActor, keyId?: string) {
    await this.owned.changeable(appId, ownerId);
    const key = keyId === undefined ? undefined : await this.namedKeys.live(appId, keyId);
    const keysBefore = auditedKeys(await this.apiKeys.listForApp(appId));
    const apiKey = await this.credentials.rotateApiKey(appId, graceSeconds * 1000, key);
    await this.audit.record(actor, {
      action: 'key.rotate',
      appId,
      ownerId,
      changes: { api_keys: { before: keysBefore, after: auditedKeys(await this.apiKeys.listForApp(appId)) } },
    });
    return { app_id: appId, api_key: apiKey, previous_key_valid_for_seconds: graceSeconds };
  }

  /** The application's keys, revoked and expired ones included, oldest first. */
  async list(appId: string, ownerId: string) {
    await this.owned.find(appId, ownerId);
    return { app_id: appId, data: await this.namedKeys.list(appId) };
  }

  /** Another named key, with an optional expiry; the key itself is in this answer only. */
  async create(appId: string, ownerId: string, input: { name: string; expiresAt?: Date }, actor: AuditActor) {
    const app = await this.owned.find(appId, ownerId);
    if (app.status !== 'active') throw new GatewayError('NotFound', `application ${appId} is revoked`, { param: 'id' });
    return this.namedKeys.create({ appId, ownerId }, input, actor);
  }

  /** Revokes one key; the others keep working. */
  async revoke(appId: string, ownerId: string, keyId: string, actor: AuditActor) {
    await this.owned.find(appId, ownerId);
    return this.namedKeys.revoke({ appId, ownerId }, keyId, actor);
  }

  async resetSecretKey(appId: string, ownerId: string, actor: AuditActor) {
    await this.owned.changeable(appId, ownerId);
    const secretKey = await this.credentials.resetSecretKey(appId, ownerId);
    if (!secretKey) throw applicationNotFound(appId);
    // Neither Secret Key is named, sealed or not: only that one replaced the other.
    await this.audit.record(actor, {
      action: 'secret.reset',
      appId,
      ownerId,
      changes: { secret_key: { before: 'previous', after: 'new' } },
    });
    return { app_id: appId, secret_key: secretKey };
  }
}
