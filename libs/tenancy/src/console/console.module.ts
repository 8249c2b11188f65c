import { WebhookJobs } from '@gateway/webhooks';
import { Module } from '@nestjs/common';
import { CredentialsModule } from '../credentials/credentials.module';
import { TenancyModule } from '../tenancy.module';
import { ConsoleApplicationsService } from './console-applications.service';
import { ConsoleAuditService } from './console-audit.service';
import { ConsoleSessionsService } from './console-sessions.service';
import { ConsoleOperatorsService } from './console-operators.service';
import { ConsoleRefusalsService } from './console-refusals.service';

@Module({
  imports: [CredentialsModule, TenancyModule],
  providers: [
    ConsoleSessionsService,
    ConsoleApplicationsService,
    ConsoleOperatorsService,
    ConsoleAuditService,
    ConsoleRefusalsService,
    WebhookJobs,
  ],
  exports: [
    ConsoleSessionsService,
    ConsoleApplicationsService,
    ConsoleOperatorsService,
    ConsoleAuditService,
    ConsoleRefusalsService,
  ],
})
export class ConsoleModule {}
