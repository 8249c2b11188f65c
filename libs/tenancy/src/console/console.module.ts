import { WebhookJobs } from '@gateway/webhooks';
import { Module } from '@nestjs/common';
import { CredentialsModule } from '../credentials/credentials.module';
import { ConsoleApplicationsService } from './console-applications.service';
import { ConsoleSessionsService } from './console-sessions.service';

@Module({
  imports: [CredentialsModule],
  providers: [ConsoleSessionsService, ConsoleApplicationsService, WebhookJobs],
  exports: [ConsoleSessionsService, ConsoleApplicationsService],
})
export class ConsoleModule {}
