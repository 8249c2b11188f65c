import { GatewayError } from '@gateway/common';
import { ApplicationRecord, ApplicationsRepository } from '@gateway/db';
import { Injectable } from '@nestjs/common';

/** An application of the signed-in owner; another user's id reads as absent (404), so ids reveal nothing. */
@Injectable()
export class OwnedApplications {
  constructor(private readonly applications: ApplicationsRepository) {}

  async find(appId: string, ownerId: string): Promise<ApplicationRecord> {
    const app = await this.applications.findOwned(appId, ownerId);
    if (!app) throw applicationNotFound(appId);
    return app;
  }

  /** An owned application that may still change: a deleted (revoked) one is a record only, 409 ApplicationRevoked. */
  async changeable(appId: string, ownerId: string): Promise<ApplicationRecord> {
    const app = await this.find(appId, ownerId);
    if (app.status === 'revoked')
      throw new GatewayError(
        'ApplicationRevoked',
        `application ${appId} is deleted; its settings and keys can no longer change`,
      );
    return app;
  }
}

export function applicationNotFound(appId: string): GatewayError {
  return new GatewayError('NotFound', `no application ${appId} in your account`, { param: 'id' });
}
