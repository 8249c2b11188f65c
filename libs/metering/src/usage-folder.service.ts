import { UsageDailyRepository } from '@gateway/db';
import { UsageLedger } from '@gateway/queue';
import { Injectable } from '@nestjs/common';

/** How long one fold may hold the lease; a holder that dies frees it after this. */
const FOLD_LEASE_MS = 60_000;
/** Batches folded per turn: usage counted faster than this is folded on the next turn. */
const BATCHES_PER_FOLD = 10;

/**
 * Moves usage counted in Redis (UsageLedger) into the MongoDB roll-ups, batch by batch, each exactly once
 * (docs/decisions/exact-usage.md). Any process may call it; one at a time folds, the others find the lease taken.
 */
@Injectable()
export class UsageFolder {
  constructor(
    private readonly ledger: UsageLedger,
    private readonly usage: UsageDailyRepository,
  ) {}

  /** Folds what is counted; returns the batches folded, or null when another process holds the lease. */
  async fold(): Promise<number | null> {
    return this.underLease(() => this.foldHeld());
  }

  /** Runs `work` holding the fold lease, so no fold runs meanwhile; null when another process holds it. */
  async underLease<T>(work: () => Promise<T>): Promise<T | null> {
    const token = await this.ledger.lease(FOLD_LEASE_MS);
    if (!token) return null;
    try {
      return await work();
    } finally {
      await this.ledger.release(token);
    }
  }

  /** Folds with the lease already held (by underLease). */
  async foldHeld(): Promise<number> {
    let folded = 0;
    for (; folded < BATCHES_PER_FOLD; folded++) {
      const batch = await this.ledger.takeBatch();
      if (!batch) break;
      await this.usage.fold(
        batch.id,
        batch.increments.map(({ appId, model, day, counters, latency }) => ({
          key: { appId, model, day },
          counters,
          latency,
        })),
      );
      await this.ledger.finishBatch(batch.id);
    }
    return folded;
  }
}
