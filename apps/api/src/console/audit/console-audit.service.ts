import { GatewayError } from '@gateway/common';
import { ApplicationsRepository, AuditLogRepository, AuditScope, FeedQuery, InvalidCursorError } from '@gateway/db';
import { ConsoleSession, presentAuditRecord } from '@gateway/tenancy';
import { Injectable } from '@nestjs/common';

/** What a listing is narrowed to. */
export interface AuditFilters {
  appId?: string;
  action?: string;
}

/** The audit log in the console: operators read every record, an owner those of their applications. */
@Injectable()
export class ConsoleAuditService {
  constructor(
    private readonly log: AuditLogRepository,
    private readonly applications: ApplicationsRepository,
  ) {}

  async list(session: ConsoleSession, filters: AuditFilters, query: FeedQuery) {
    const scope = await this.scopeOf(session, filters.appId);
    try {
      const slice = await this.log.list(scope, filters.action, query);
      return { data: slice.data.map(presentAuditRecord), next: slice.next };
    } catch (error) {
      if (error instanceof InvalidCursorError)
        throw new GatewayError('InvalidParameter', error.message, { param: 'cursor' });
      throw error;
    }
  }

  private async scopeOf(session: ConsoleSession, appId: string | undefined): Promise<AuditScope> {
    if (appId === undefined) return session.role === 'admin' ? { all: true } : { ownerId: session.userId };
    // Another owner's application reads as absent, as everywhere in the console.
    if (session.role !== 'admin' && !(await this.applications.findOwned(appId, session.userId)))
      throw new GatewayError('NotFound', `no application ${appId} in your account`, { param: 'app_id' });
    return { appId };
  }
}
