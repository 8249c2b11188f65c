import { GatewayError } from '@gateway/common';
import { ConsoleSession } from '@gateway/tenancy';
import { ConsoleAuditService } from './console-audit.service';
import { Controller, Get, Query, UseGuards } from '@nestjs/common';
import { ConsoleSessionGuard, CurrentSession } from '../auth/console-session.guard';
import { listingQuery } from '../listing-query';

const ACTION_PATTERN = /^[a-z_]+\.[a-z_]+$/;

@Controller('console/api/audit')
@UseGuards(ConsoleSessionGuard)
export class ConsoleAuditController {
  constructor(private readonly audit: ConsoleAuditService) {}

  /**
   * Audit records, newest first: an operator's are everyone's, an owner's those of their applications. `app_id` and
   * `action` narrow the listing; `from`/`to`, `limit` and `cursor` page it as the other console listings do.
   */
  @Get()
  list(@CurrentSession() session: ConsoleSession, @Query() query: Record<string, string>) {
    const { app_id: appId, action, ...paging } = query;
    if (action !== undefined && !ACTION_PATTERN.test(action))
      throw new GatewayError('InvalidParameter', 'action must be an action name such as application.update', {
        param: 'action',
      });
    if (appId !== undefined && !/^app_[0-9A-Za-z]{1,40}$/.test(appId))
      throw new GatewayError('InvalidParameter', 'app_id must be an application id (app_…)', { param: 'app_id' });
    return this.audit.list(session, { appId, action }, listingQuery(paging));
  }
}
