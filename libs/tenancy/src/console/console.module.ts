import { WebhookJobs } from '@gateway/webhooks';
import { Module } from '@nestjs/common';
import { CredentialsModule } from '../credentials/credentials.module';
import { ConsoleApplicationsService } from './console-applications.service';
import { ConsoleAuditService } from './console-audit.service';
import { ConsoleSessionsService } from './console-sessions.service';
import { ConsoleOperatorsService } from './console-operators.service';

@Module({
  imports: [CredentialsModule],
  providers: [
    ConsoleSessionsService,
    ConsoleApplicationsService,
    ConsoleOperatorsService,
    ConsoleAuditService,
    WebhookJobs,
  ],
  exports: [ConsoleSessionsService, ConsoleApplicationsService, ConsoleOperatorsService, ConsoleAuditService],
})
export class ConsoleModule {}
