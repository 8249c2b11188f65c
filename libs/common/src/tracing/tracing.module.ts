import { DynamicModule, Global, Inject, Module, OnApplicationShutdown } from '@nestjs/common';
import { Tracing } from './tracing';

/** Provides the process's Tracing, and sends the spans still batched when the application closes. */
@Global()
@Module({})
export class TracingModule implements OnApplicationShutdown {
  constructor(@Inject(Tracing) private readonly tracing: Tracing) {}

  static forRoot(tracing: Tracing): DynamicModule {
    return { module: TracingModule, providers: [{ provide: Tracing, useValue: tracing }], exports: [Tracing] };
  }

  async onApplicationShutdown(): Promise<void> {
    await this.tracing.shutdown();
  }
}
