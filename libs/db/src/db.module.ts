import { AppConfig } from '@gateway/common';
import { Global, Module } from '@nestjs/common';
import { MongooseModule } from '@nestjs/mongoose';
import { ApiKey, ApiKeySchema } from './api-keys/api-key.schema';
import { ApiKeysRepository } from './api-keys/api-keys.repository';
import { Application, ApplicationSchema } from './applications/application.schema';
import { ApplicationsRepository } from './applications/applications.repository';
import { BillingRecord, BillingRecordSchema } from './billing-records/billing-record.schema';
import { BillingRecordsRepository } from './billing-records/billing-records.repository';
import { Task, TaskSchema } from './tasks/task.schema';
import { TasksRepository } from './tasks/tasks.repository';
import { UsageDaily, UsageDailySchema } from './usage-daily/usage-daily.schema';
import { User, UserSchema } from './users/user.schema';
import { UsersRepository } from './users/users.repository';
import { UsageDailyRepository } from './usage-daily/usage-daily.repository';
import { WebhookDeliveriesRepository } from './webhook-deliveries/webhook-deliveries.repository';
import { WebhookDelivery, WebhookDeliverySchema } from './webhook-deliveries/webhook-delivery.schema';

const repositories = [
  ApplicationsRepository,
  ApiKeysRepository,
  TasksRepository,
  UsageDailyRepository,
  BillingRecordsRepository,
  UsersRepository,
  WebhookDeliveriesRepository,
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
        // FerretDB and MongoDB both build these once; no TTL indexes (DESIGN §5).
        autoIndex: true,
      }),
    }),
    MongooseModule.forFeature([
      { name: Application.name, schema: ApplicationSchema },
      { name: ApiKey.name, schema: ApiKeySchema },
      { name: Task.name, schema: TaskSchema },
      { name: UsageDaily.name, schema: UsageDailySchema },
      { name: BillingRecord.name, schema: BillingRecordSchema },
      { name: User.name, schema: UserSchema },
      { name: WebhookDelivery.name, schema: WebhookDeliverySchema },
    ]),
  ],
  providers: repositories,
  exports: repositories,
})
export class DbModule {}
