import { AppConfig, LOGGER } from '@gateway/common';
import { UsageFolder } from '@gateway/metering';
import { BeforeApplicationShutdown, Inject, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { Logger } from 'pino';
import { PeriodicTurns } from './periodic-turns';

/**
 * Folds counted usage into the MongoDB roll-ups every USAGE_FLUSH_MS (UsageFolder); whichever worker holds the
 * lease does it. Nothing is lost by a worker that dies or a fold that fails: the usage stays counted in Redis.
 */
@Injectable()
export class UsageFolding implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly turns: PeriodicTurns;
  private failing = false;

  constructor(
    config: AppConfig,
    private readonly folder: UsageFolder,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {
    this.turns = new PeriodicTurns(config.USAGE_FLUSH_MS, () => this.fold());
  }

  onApplicationBootstrap(): void {
    this.turns.start();
  }

  beforeApplicationShutdown(): Promise<void> {
    return this.turns.stop();
  }

  private async fold(): Promise<void> {
    try {
      await this.folder.fold();
      this.failing = false;
    } catch (error) {
      if (!this.failing) this.logger.warn({ err: (error as Error).message }, 'usage fold failed; it stays counted');
      this.failing = true;
    }
  }
}
