import { AppConfig, LOGGER } from '@gateway/common';
import { ApiKeysRepository } from '@gateway/db';
import { Inject, Injectable, OnModuleDestroy } from '@nestjs/common';
import { Logger } from 'pino';

/**
 * Each API key's last authenticated call, noted in memory on the hot path (one Map.set, no I/O) and folded into
 * api_keys.lastUsedAt every KEY_LAST_USED_FLUSH_MS in one bulk write, and at shutdown (docs/contracts.md). Every api
 * instance writes its own times with $max, so the latest wins whatever order they arrive in.
 */
@Injectable()
export class KeyLastUsed implements OnModuleDestroy {
  private pending = new Map<string, number>();
  private readonly timer: NodeJS.Timeout;
  private flushing?: Promise<void>;

  constructor(
    config: AppConfig,
    private readonly apiKeys: ApiKeysRepository,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {
    this.timer = setInterval(() => void this.flush(), config.KEY_LAST_USED_FLUSH_MS);
    this.timer.unref();
  }

  note(keyId: string, at = Date.now()): void {
    this.pending.set(keyId, at);
  }

  async onModuleDestroy(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
  }

  /** Writes what was noted since the last flush; a failed write keeps the times for the next one. */
  flush(): Promise<void> {
    if (this.flushing || this.pending.size === 0) return this.flushing ?? Promise.resolve();
    const batch = this.pending;
    this.pending = new Map();
    this.flushing = this.apiKeys
      .recordLastUsed(batch)
      .catch((error: Error) => {
        this.logger.warn({ err: error.message, keys: batch.size }, 'API keys last-used times not written; retrying');
        for (const [keyId, at] of batch) if ((this.pending.get(keyId) ?? 0) < at) this.pending.set(keyId, at);
      })
      .finally(() => (this.flushing = undefined));
    return this.flushing;
  }
}
