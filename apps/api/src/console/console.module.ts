import { CallbackUrls } from '@gateway/outbound';
import { ConsoleSessionsModule, CredentialsModule, TenancyModule } from '@gateway/tenancy';
import { WebhookJobs } from '@gateway/webhooks';
import { Module } from '@nestjs/common';
import { ApplicationBudget } from './applications/application-budget.service';
import { ApplicationChanges } from './applications/application-changes.service';
import { ApplicationCreation } from './applications/application-creation.service';
import { ApplicationListing } from './applications/application-listing.service';
import { ApplicationsListingBackfill } from './applications/applications-listing-backfill';
import { ConsoleApplicationsController } from './applications/console-applications.controller';
import { OwnedApplications } from './applications/owned-applications';
import { ConsoleAuditController } from './audit/console-audit.controller';
import { ConsoleAuditService } from './audit/console-audit.service';
import { ConsoleAuthController } from './auth/console-auth.controller';
import { ConsoleSessionGuard } from './auth/console-session.guard';
import { ConsoleTaskBodiesController } from './bodies/console-task-bodies.controller';
import { ConsoleTaskBodiesService } from './bodies/console-task-bodies.service';
import { ApplicationKeys } from './keys/application-keys.service';
import { ConsoleModelsController } from './models/console-models.controller';
import { ConsoleOperatorsController } from './operators/console-operators.controller';
import { ConsoleOperatorsService } from './operators/console-operators.service';
import { ConsoleRefusalsService } from './requests/console-refusals.service';
import { ConsoleRequestsController } from './requests/console-requests.controller';
import { ConsoleRequestsExportService } from './requests/console-requests-export.service';
import { TaskFeeds } from './requests/task-feeds.service';
import { ConsoleAccountUsageController } from './usage/console-account-usage.controller';
import { ConsoleUsageController } from './usage/console-usage.controller';
import { ConsoleUsageService } from './usage/console-usage.service';
import { WebhookDeliveries } from './webhooks/webhook-deliveries.service';

/** The console's API (/console/api): one folder per resource, each a controller over its use cases. */
@Module({
  imports: [CredentialsModule, TenancyModule, ConsoleSessionsModule],
  controllers: [
    ConsoleAuthController,
    ConsoleAuditController,
    ConsoleApplicationsController,
    ConsoleRequestsController,
    ConsoleTaskBodiesController,
    ConsoleUsageController,
    ConsoleAccountUsageController,
    ConsoleOperatorsController,
    ConsoleModelsController,
  ],
  providers: [
    ConsoleSessionGuard,
    OwnedApplications,
    ApplicationListing,
    ApplicationCreation,
    ApplicationChanges,
    CallbackUrls,
    ApplicationBudget,
    ApplicationKeys,
    WebhookDeliveries,
    TaskFeeds,
    ConsoleOperatorsService,
    ConsoleAuditService,
    ConsoleRefusalsService,
    ConsoleRequestsExportService,
    ConsoleUsageService,
    ConsoleTaskBodiesService,
    WebhookJobs,
    ApplicationsListingBackfill,
  ],
  exports: [ConsoleSessionsModule, ConsoleSessionGuard],
})
export class ConsoleModule {}
