import { AppConfig, LOGGER } from '@gateway/common';
import { UsageFolder } from '@gateway/metering';
import { BeforeApplicationShutdown, Inject, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { Logger } from 'pino';

/**
 * Folds counted usage into the MongoDB roll-ups every USAGE_FLUSH_MS (UsageFolder); whichever worker holds the
 * lease does it. Nothing is lost by a worker that dies or a fold that fails: the usage stays counted in Redis.
 */
@Injectable()
export class UsageFolding implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private timer?: NodeJS.Timeout;
  private folding?: Promise<void>;
  private failing = false;

  constructor(
    private readonly config: AppConfig,
    private readonly folder: UsageFolder,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => void this.fold(), this.config.USAGE_FLUSH_MS);
    this.timer.unref();
  }

  beforeApplicationShutdown(): Promise<void> | undefined {
    if (this.timer) clearInterval(this.timer);
    return this.folding;
  }

  private fold(): Promise<void> {
    this.folding ??= this.folder
      .fold()
      .then(() => (this.failing = false))
      .catch((error: unknown) => {
        if (!this.failing) this.logger.warn({ err: (error as Error).message }, 'usage fold failed; it stays counted');
        this.failing = true;
      })
      .then(() => undefined)
      .finally(() => (this.folding = undefined));
    return this.folding;
  }
}
