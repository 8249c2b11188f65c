import { WebhookJobs } from '@gateway/webhooks';
import { Module } from '@nestjs/common';
import { CredentialsModule } from '../credentials/credentials.module';
import { TenancyModule } from '../tenancy.module';
import { ApplicationsListingBackfill } from './applications-listing-backfill';
import { ConsoleApplicationsService } from './console-applications.service';
import { ConsoleAuditService } from './console-audit.service';
import { ConsoleSessionsService } from './console-sessions.service';
import { ConsoleOperatorsService } from './console-operators.service';
import { ConsoleRefusalsService } from './console-refusals.service';
import { ConsoleRequestsExportService } from './console-requests-export.service';
import { ConsoleTaskBodiesService } from './console-task-bodies.service';
import { ConsoleUsageService } from './console-usage.service';
import { OperatorSetup } from './operator-setup';

@Module({
  imports: [CredentialsModule, TenancyModule],
  providers: [
    ConsoleSessionsService,
    ConsoleApplicationsService,
    ConsoleOperatorsService,
    ConsoleAuditService,
    ConsoleRefusalsService,
    ConsoleRequestsExportService,
    ConsoleUsageService,
    ConsoleTaskBodiesService,
    OperatorSetup,
    WebhookJobs,
    ApplicationsListingBackfill,
  ],
  exports: [
    ConsoleSessionsService,
    ConsoleApplicationsService,
    ConsoleOperatorsService,
    ConsoleAuditService,
    ConsoleRefusalsService,
    ConsoleRequestsExportService,
    ConsoleUsageService,
    ConsoleTaskBodiesService,
    OperatorSetup,
  ],
})
export class ConsoleModule {}
