import { CatalogService } from '@gateway/catalog';
import { GatewayError } from '@gateway/common';
import { ApiKeysRepository, ApplicationsRepository, UsersRepository } from '@gateway/db';
import { CallbackUrls } from '@gateway/outbound';
import {
  AuditActor,
  auditedApplication,
  auditedKeys,
  AuditTrail,
  changedFields,
  CredentialsService,
} from '@gateway/tenancy';
import { Injectable } from '@nestjs/common';
import { checkCeilings, checkModels } from './application-rules';
import { ApplicationSettings, presentApplication } from './application-view';

/** A new application of the signed-in owner, under the account's ceilings, with its first keys shown once. */
@Injectable()
export class ApplicationCreation {
  constructor(
    private readonly users: UsersRepository,
    private readonly applications: ApplicationsRepository,
    private readonly apiKeys: ApiKeysRepository,
    private readonly catalog: CatalogService,
    private readonly credentials: CredentialsService,
    private readonly callbackUrls: CallbackUrls,
    private readonly audit: AuditTrail,
  ) {}

  async create(ownerId: string, settings: ApplicationSettings, actor: AuditActor) {
    checkModels(this.catalog, settings.scope?.models ?? []);
    const ceilings = (await this.users.findById(ownerId))?.ceilings;
    if (ceilings?.maxApplications !== undefined) {
      const active = (await this.applications.list(ownerId)).filter((app) => app.status === 'active').length;
      if (active >= ceilings.maxApplications) {
        throw new GatewayError(
          'CeilingExceeded',
          `your account may have at most ${ceilings.maxApplications} applications; ask the gateway's operator for more`,
        );
      }
    }
    // Under a ceiling, an unset limit is the ceiling rather than unlimited.
    const limited = {
      ...settings,
      dailyCallLimit: settings.dailyCallLimit ?? ceilings?.maxDailyCallLimit,
      tokenQuota: settings.tokenQuota ?? ceilings?.maxTokenQuota,
    };
    checkCeilings(ceilings, limited);
    if (settings.callbackUrl) await this.callbackUrls.check(settings.callbackUrl);
    const issued = await this.credentials.createApplication({ ...limited, ownerId });
    const keys = await this.apiKeys.listForApp(issued.appId);
    await this.audit.record(actor, {
      action: 'application.create',
      appId: issued.appId,
      ownerId,
      changes: {
        ...changedFields(null, auditedApplication(issued.application)),
        api_keys: { before: [], after: auditedKeys(keys) },
      },
    });
    return {
      ...presentApplication(issued.application, keys),
      // Shown once: only hashes and ciphertexts are kept.
      credentials: { app_id: issued.appId, api_key: issued.apiKey, secret_key: issued.secretKey },
    };
  }
}
