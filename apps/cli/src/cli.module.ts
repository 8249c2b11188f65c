import { CatalogModule } from '@gateway/catalog';
import { AppConfig, ConfigModule, LoggerModule } from '@gateway/common';
import { DbModule } from '@gateway/db';
import { Pricing, UpstreamReconciler, UsageFolder, UsageReconciler } from '@gateway/metering';
import { QueueModule } from '@gateway/queue';
import { CredentialsModule, OperatorSetup, SecretKeyResealer } from '@gateway/tenancy';
import { DynamicModule, Module } from '@nestjs/common';
import { Logger } from 'pino';
import { CliCommands } from './cli.commands';

@Module({})
export class CliModule {
  static forRoot(config: AppConfig, logger: Logger): DynamicModule {
    return {
      module: CliModule,
      // Redis too: the repositories number listed records with its counters (FeedPages).
      imports: [
        ConfigModule.forRoot(config),
        LoggerModule.forRoot(logger),
        DbModule,
        QueueModule.forCommands(),
        CredentialsModule,
        // The catalog's prices, for what spent upstream calls cost (usage:reconcile --upstream).
        CatalogModule,
      ],
      providers: [
        CliCommands,
        UsageFolder,
        UsageReconciler,
        Pricing,
        UpstreamReconciler,
        SecretKeyResealer,
        OperatorSetup,
      ],
    };
  }
}
