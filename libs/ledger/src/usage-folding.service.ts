import { AppConfig, LOGGER } from '@gateway/common';
import { BeforeApplicationShutdown, Inject, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { Logger } from 'pino';
import { UsageLedger } from './usage-ledger';

/**
 * Folds counted usage into the MongoDB roll-ups every USAGE_FLUSH_MS (UsageLedger.fold), in every worker; whichever
 * holds the lease does it. Nothing is lost by a worker that dies or a fold that fails: the usage stays in Redis.
 * Never two folds at once: a fold still running when the next is due is that turn. Stopping waits for the fold in
 * progress, so a worker's shutdown lets it finish before connections close.
 */
@Injectable()
export class UsageFolding implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private timer?: NodeJS.Timeout;
  private folding?: Promise<void>;
  private failing = false;

  constructor(
    private readonly config: AppConfig,
    private readonly ledger: UsageLedger,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => void this.turn(), this.config.USAGE_FLUSH_MS);
    this.timer.unref();
  }

  async beforeApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
    await this.folding;
  }

  private turn(): Promise<void> {
    this.folding ??= this.fold().finally(() => (this.folding = undefined));
    return this.folding;
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
