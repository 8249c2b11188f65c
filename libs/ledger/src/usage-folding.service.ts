import { AppConfig, LOGGER, PeriodicTurns } from '@gateway/common';
import { BeforeApplicationShutdown, Inject, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { Logger } from 'pino';
import { UsageLedger } from './usage-ledger';

/**
 * Folds counted usage into the MongoDB roll-ups every USAGE_FLUSH_MS (UsageLedger.fold), in every worker; whichever
 * holds the lease does it. Nothing is lost by a worker that dies or a fold that fails: the usage stays in Redis.
 */
@Injectable()
export class UsageFolding implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly turns: PeriodicTurns;
  private failing = false;

  constructor(
    config: AppConfig,
    private readonly ledger: UsageLedger,
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
      await this.ledger.fold();
      this.failing = false;
    } catch (error) {
      if (!this.failing) this.logger.warn({ err: (error as Error).message }, 'usage fold failed; it stays counted');
      this.failing = true;
    }
  }
}
