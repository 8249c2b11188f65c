import { AppConfig, LOGGER } from '@gateway/common';
import { UsageCounters, UsageDailyRepository, UsageKey } from '@gateway/db';
import { BeforeApplicationShutdown, Inject, Injectable, OnModuleInit } from '@nestjs/common';
import { Logger } from 'pino';

type Pending = { key: UsageKey; counters: UsageCounters };

const EMPTY: UsageCounters = { calls: 0, errors: 0, promptTokens: 0, completionTokens: 0, images: 0, cost: 0 };

/**
 * Daily usage roll-ups, summed in memory and written as one $inc upsert per (application, model, day) every
 * USAGE_FLUSH_MS: a write per task would cost the database more than the task itself. Task records remain the
 * source of truth; a crash loses at most one interval of roll-ups, never a task or a billing record.
 */
@Injectable()
export class UsageRollups implements OnModuleInit, BeforeApplicationShutdown {
  private pending = new Map<string, Pending>();
  private timer?: NodeJS.Timeout;
  private flushing?: Promise<void>;

  constructor(
    private readonly config: AppConfig,
    private readonly usage: UsageDailyRepository,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  onModuleInit(): void {
    this.timer = setInterval(() => void this.flush(), this.config.USAGE_FLUSH_MS);
    this.timer.unref();
  }

  /** After workers have drained (onModuleDestroy) and before MongoDB closes (onApplicationShutdown). */
  async beforeApplicationShutdown(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.flush();
  }

  add(key: UsageKey, counters: Partial<UsageCounters>): void {
    const id = `${key.appId}|${key.model}|${key.day}`;
    const entry = this.pending.get(id) ?? { key, counters: { ...EMPTY } };
    for (const [name, value] of Object.entries(counters) as [keyof UsageCounters, number][])
      entry.counters[name] += value;
    this.pending.set(id, entry);
  }

  /** Writes what has accumulated; a failed write is merged back and retried at the next interval. */
  async flush(): Promise<void> {
    if (this.flushing) return this.flushing;
    if (this.pending.size === 0) return;
    const batch = [...this.pending.values()];
    this.pending = new Map();
    this.flushing = this.usage
      .add(batch)
      .catch((error) => {
        this.logger.warn({ err: (error as Error).message, keys: batch.length }, 'usage roll-up write failed; retrying');
        for (const { key, counters } of batch) this.add(key, counters);
      })
      .finally(() => (this.flushing = undefined));
    return this.flushing;
  }
}
