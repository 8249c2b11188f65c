import { AppConfig } from '@gateway/common';
import { Global, Module } from '@nestjs/common';
import { MongooseModule } from '@nestjs/mongoose';
import { ApiKey, ApiKeySchema } from './api-keys/api-key.schema';
import { ApiKeysRepository } from './api-keys/api-keys.repository';
import { Application, ApplicationSchema } from './applications/application.schema';
import { ApplicationsRepository } from './applications/applications.repository';
import { Task, TaskSchema } from './tasks/task.schema';
import { TasksRepository } from './tasks/tasks.repository';

const repositories = [ApplicationsRepository, ApiKeysRepository, TasksRepository];

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
    ]),
  ],
  providers: repositories,
  exports: repositories,
})
export class DbModule {}
