import { CatalogService } from '@gateway/catalog';
import { ApiKeysRepository, ApplicationsRepository, UsersRepository } from '@gateway/db';
import { CallbackUrls } from '@gateway/outbound';
import { AuditActor, auditedApplication, auditedKeys, AuditTrail, changedFields } from '@gateway/tenancy';
import { Injectable } from '@nestjs/common';
import { checkCeilings, checkModels } from './application-rules';
import { ApplicationSettings, presentApplication } from './application-view';
import { applicationNotFound, OwnedApplications } from './owned-applications';

/** Changing an owned application's settings, and deleting it (revoked with its keys, kept as a record). */
@Injectable()
export class ApplicationChanges {
  constructor(
    private readonly owned: OwnedApplications,
    private readonly applications: ApplicationsRepository,
    private readonly apiKeys: ApiKeysRepository,
    private readonly users: UsersRepository,
    private readonly catalog: CatalogService,
    private readonly callbackUrls: CallbackUrls,
    private readonly audit: AuditTrail,
  ) {}

  async update(appId: string, ownerId: string, changes: Partial<ApplicationSettings>, actor: AuditActor) {
    checkModels(this.catalog, changes.scope?.models ?? []);
    const before = await this.owned.changeable(appId, ownerId);
    if (changes.dailyCallLimit !== undefined || changes.tokenQuota !== undefined) {
      checkCeilings((await this.users.findById(ownerId))?.ceilings, changes);
    }
    await this.callbackUrls.check(changes.callbackUrl);
    // Saving the callback URL again, even unchanged, re-enables a callback a 410 disabled.
    const app = await this.applications.updateOwned(
      appId,
      ownerId,
      changes.callbackUrl !== undefined ? { ...changes, callbackDisabledAt: null } : changes,
    );
    if (!app) throw applicationNotFound(appId);
    await this.audit.record(actor, {
      action: 'application.update',
      appId,
      ownerId,
      changes: changedFields(auditedApplication(before), auditedApplication(app)),
    });
    return presentApplication(app, await this.apiKeys.listForApp(appId));
  }

  async revoke(appId: string, ownerId: string, actor: AuditActor) {
    const before = await this.owned.find(appId, ownerId);
    const keysBefore = auditedKeys(await this.apiKeys.listForApp(appId));
    const app = await this.applications.updateOwned(appId, ownerId, { status: 'revoked' });
    if (!app) throw applicationNotFound(appId);
    await this.apiKeys.revokeAll(appId);
    const keysAfter = await this.apiKeys.listForApp(appId);
    await this.audit.record(actor, {
      action: 'application.delete',
      appId,
      ownerId,
      changes: {
        ...changedFields(auditedApplication(before), auditedApplication(app)),
        api_keys: { before: keysBefore, after: auditedKeys(keysAfter) },
      },
    });
    return presentApplication(app, keysAfter);
  }
}
