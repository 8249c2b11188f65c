import { DynamicModule, Global, Module } from '@nestjs/common';
import { AppConfig } from './app-config';

/**
 * Provides the validated AppConfig. Not @nestjs/config: its forRoot writes validated values back into
 * process.env, so two instances configured differently in one process (as the e2e suite runs them) would leak into each other.
 */
@Global()
@Module({})
export class ConfigModule {
  static forRoot(config: AppConfig): DynamicModule {
    return { module: ConfigModule, providers: [{ provide: AppConfig, useValue: config }], exports: [AppConfig] };
  }
}
