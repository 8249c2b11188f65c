import { CatalogModule } from '@gateway/catalog';
import { AppConfig, ConfigModule, LoggerModule } from '@gateway/common';
import { DbModule } from '@gateway/db';
import { LedgerModule } from '@gateway/ledger';
import { CallbackUrls } from '@gateway/outbound';
import { RedisModule } from '@gateway/redis';
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
        // Plain Redis only: no BullMQ queue is opened, since one closed while its connection is still starting makes
        // BullMQ emit an error after it has dropped its listeners, which ends the process.
        RedisModule,
        LedgerModule,
        CredentialsModule,
        // The catalog's prices, for what spent upstream calls cost (usage:reconcile --upstream).
        CatalogModule,
      ],
      providers: [CliCommands, SecretKeyResealer, OperatorSetup, CallbackUrls],
    };
  }
}
