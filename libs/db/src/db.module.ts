import { AppConfig } from '@gateway/common';
import { Global, Module } from '@nestjs/common';
import { MongooseModule } from '@nestjs/mongoose';
import { ApiKey, ApiKeyLastUsed, ApiKeyLastUsedSchema, ApiKeySchema } from './api-keys/api-key.schema';
import { ApiKeysRepository } from './api-keys/api-keys.repository';
import { Application, ApplicationSchema } from './applications/application.schema';
import { ApplicationsRepository } from './applications/applications.repository';
import { AuditRecord, AuditRecordSchema } from './audit/audit-record.schema';
import { AuditLogRepository } from './audit/audit-log.repository';
import { BillingRecord, BillingRecordSchema } from './billing-records/billing-record.schema';
import { BillingRecordsRepository } from './billing-records/billing-records.repository';
import { FeedDirectory, FeedDirectorySchema } from './feeds/feed-directory.schema';
import { FeedRow, FeedRowSchema } from './feeds/feed-row.schema';
import { FeedPages } from './feeds/feed-pages';
import { DeploymentSecret, DeploymentSecretSchema } from './deployment-secrets/deployment-secret.schema';
import { DeploymentSecretsRepository } from './deployment-secrets/deployment-secrets.repository';
import { SweepState, SweepStateSchema } from './sweeps/sweep-state.schema';
import { SweepStateRepository } from './sweeps/sweep-state.repository';
import { FeedSweeper } from './sweeps/feed-sweeper';
import { Task, TaskResult, TaskResultSchema, TaskSchema } from './tasks/task.schema';
import { TasksRepository } from './tasks/tasks.repository';
import { TaskBody, TaskBodySchema } from './task-bodies/task-body.schema';
import { TaskBodiesRepository } from './task-bodies/task-bodies.repository';
import { UsageDaily, UsageDailySchema } from './usage-daily/usage-daily.schema';
import { User, UserSchema } from './users/user.schema';
import { UsersRepository } from './users/users.repository';
import { Invitation, InvitationSchema } from './invitations/invitation.schema';
import { InvitationsRepository } from './invitations/invitations.repository';
import { UsageDailyRepository } from './usage-daily/usage-daily.repository';
import { WebhookDeliveriesRepository } from './webhook-deliveries/webhook-deliveries.repository';
import { WebhookDelivery, WebhookDeliverySchema } from './webhook-deliveries/webhook-delivery.schema';

const repositories = [
  ApplicationsRepository,
  ApiKeysRepository,
  TasksRepository,
  TaskBodiesRepository,
  UsageDailyRepository,
  BillingRecordsRepository,
  UsersRepository,
  InvitationsRepository,
  WebhookDeliveriesRepository,
  AuditLogRepository,
  SweepStateRepository,
  DeploymentSecretsRepository,
  FeedPages,
  FeedSweeper,
];

@Global()
@Module({
  imports: [
    MongooseModule.forRootAsync({
      inject: [AppConfig],
      useFactory: (config: AppConfig) => ({
        uri: config.MONGODB_URI,
        maxPoolSize: 32,
        serverSelectionTimeoutMS: 5000,
        // FerretDB and MongoDB both build these once; no TTL indexes, which FerretDB 1.24 does not honour
        // (docs/contracts.md, collections). Every query and the index that serves it: indexes.int-spec.ts.
        autoIndex: true,
      }),
    }),
    MongooseModule.forFeature([
      { name: Application.name, schema: ApplicationSchema },
      { name: ApiKey.name, schema: ApiKeySchema },
      { name: ApiKeyLastUsed.name, schema: ApiKeyLastUsedSchema },
      { name: Task.name, schema: TaskSchema },
      { name: TaskResult.name, schema: TaskResultSchema },
      { name: TaskBody.name, schema: TaskBodySchema },
      { name: FeedDirectory.name, schema: FeedDirectorySchema },
      { name: FeedRow.name, schema: FeedRowSchema },
      { name: SweepState.name, schema: SweepStateSchema },
      { name: UsageDaily.name, schema: UsageDailySchema },
      { name: BillingRecord.name, schema: BillingRecordSchema },
      { name: User.name, schema: UserSchema },
      { name: Invitation.name, schema: InvitationSchema },
      { name: WebhookDelivery.name, schema: WebhookDeliverySchema },
      { name: AuditRecord.name, schema: AuditRecordSchema },
      { name: DeploymentSecret.name, schema: DeploymentSecretSchema },
    ]),
  ],
  providers: repositories,
  exports: repositories,
})
export class DbModule {}
