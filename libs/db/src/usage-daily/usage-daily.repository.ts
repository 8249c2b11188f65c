import { Injectable } from '@nestjs/common';
import { InjectModel } from '@nestjs/mongoose';
import { Model } from 'mongoose';
import { isDuplicateKey } from '../internal/duplicate-key';
import { UsageCounters, UsageDaily, UsageDay, UsageIncrementOf, UsageKey } from './usage-daily.schema';

/**
 * Statements per update command. FerretDB 1.24 holds a PostgreSQL connection for each statement of an update
 * command that matched a document until the whole command ends (a `defer` inside its loop over statements), and its
 * pool has 50: a command updating 50 existing documents waits for a connection forever.
 */
const UPDATES_PER_COMMAND = 16;
/** Roll-ups a fold updates at once. */
const FOLDS_AT_ONCE = 4;

@Injectable()
export class UsageDailyRepository {
  constructor(@InjectModel(UsageDaily.name) private readonly model: Model<UsageDaily>) {}

  /**
   * Adds one usage batch to its roll-ups, creating them as needed. Idempotent per batch: a roll-up that already has
   * `batchId` is left alone, so a fold that died halfway is simply run again. One update per roll-up (FerretDB stops
   * an unordered bulk write at its first error), a few at a time; one writer at a time (UsageLedger's lease).
   */
  async fold(batchId: string, increments: UsageIncrementOf[]): Promise<void> {
    let next = 0;
    const foldOne = async ({ key, counters, latency = {} }: UsageIncrementOf): Promise<void> => {
      const latencyIncrements = Object.fromEntries(
        Object.entries(latency).map(([bound, count]) => [`latency.${bound}`, count]),
      );
      const { matchedCount } = await this.model
        .updateOne(
          { _id: rollupId(key), lastFold: { $ne: batchId } },
          { $inc: { ...counters, ...latencyIncrements }, $set: { lastFold: batchId } },
        )
        .exec();
      if (matchedCount > 0) return;
      // Absent, or already holding this batch: an insert tells which.
      await this.model.collection
        .insertOne({ _id: rollupId(key), appMonth: appMonth(key), ...counters, latency, lastFold: batchId } as never)
        .catch((error: { code?: number }) => {
          if (!isDuplicateKey(error)) throw error;
        });
    };
    await Promise.all(
      Array.from({ length: Math.min(FOLDS_AT_ONCE, increments.length) }, async () => {
        while (next < increments.length) await foldOne(increments[next++]);
      }),
    );
  }

  /** Sets roll-ups to exact counters (a reconciliation, under the fold lease), creating them as needed. */
  async replace(rollups: { key: UsageKey; counters: UsageCounters }[]): Promise<void> {
    for (let start = 0; start < rollups.length; start += UPDATES_PER_COMMAND) {
      await this.model.bulkWrite(
        rollups.slice(start, start + UPDATES_PER_COMMAND).map(({ key, counters }) => ({
          updateOne: {
            filter: { _id: rollupId(key) },
            update: { $set: counters, $setOnInsert: { appMonth: appMonth(key) } },
            upsert: true,
          },
        })),
        { ordered: false },
      );
    }
  }

  /** Days `from`..`to` (YYYY-MM-DD, inclusive) of one application, oldest first, then by model. */
  async listForApp(appId: string, from: string, to: string): Promise<UsageDay[]> {
    const months = monthsBetween(from, to);
    const found = await Promise.all(
      months.map((month) =>
        this.model
          .find({ appMonth: `${appId}|${month}` })
          .lean<UsageDaily[]>()
          .exec(),
      ),
    );
    return found
      .flat()
      .map(({ _id, appMonth: _month, lastFold: _batch, latency, ...counters }) => ({
        ...counters,
        latency: latency ?? {},
        ...keyOf(_id),
      }))
      .filter((usage) => usage.day >= from && usage.day <= to)
      .sort((a, b) =>
        a.day === b.day ? (a.model < b.model ? -1 : a.model > b.model ? 1 : 0) : a.day < b.day ? -1 : 1,
      );
  }
}

function rollupId(key: UsageKey): string {
  return `${key.appId}|${key.model}|${key.day}`;
}

function appMonth(key: UsageKey): string {
  return `${key.appId}|${key.day.slice(0, 7)}`;
}

/** The key an `_id` spells: the application and the day are its first and last parts, the model all between. */
function keyOf(id: string): UsageKey {
  const first = id.indexOf('|');
  const last = id.lastIndexOf('|');
  return { appId: id.slice(0, first), model: id.slice(first + 1, last), day: id.slice(last + 1) };
}

/** YYYY-MM of every month that `from`..`to` touches, oldest first. */
function monthsBetween(from: string, to: string): string[] {
  const months: string[] = [];
  for (
    let [year, month] = from.slice(0, 7).split('-').map(Number);
    `${year}-${String(month).padStart(2, '0')}` <= to.slice(0, 7);
  ) {
    months.push(`${year}-${String(month).padStart(2, '0')}`);
    [year, month] = month === 12 ? [year + 1, 1] : [year, month + 1];
  }
  return months;
}
