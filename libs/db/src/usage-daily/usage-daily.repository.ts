import { Injectable } from '@nestjs/common';
import { InjectModel } from '@nestjs/mongoose';
import { Model } from 'mongoose';
import { UsageCounters, UsageDaily, UsageDay, UsageKey } from './usage-daily.schema';

/**
 * Statements per update command. FerretDB 1.24 holds a PostgreSQL connection for each statement of an update
 * command that matched a document until the whole command ends (a `defer` inside its loop over statements), and its
 * pool has 50: a command updating 50 existing documents waits for a connection forever.
 */
const UPDATES_PER_COMMAND = 16;

@Injectable()
export class UsageDailyRepository {
  constructor(@InjectModel(UsageDaily.name) private readonly model: Model<UsageDaily>) {}

  /** Adds counters to their day documents, creating them as needed; one bulk write for many keys. */
  async add(increments: { key: UsageKey; counters: UsageCounters }[]): Promise<void> {
    for (let start = 0; start < increments.length; start += UPDATES_PER_COMMAND) {
      await this.model.bulkWrite(
        increments.slice(start, start + UPDATES_PER_COMMAND).map(({ key, counters }) => ({
          updateOne: {
            filter: { _id: `${key.appId}|${key.model}|${key.day}` },
            update: { $inc: counters, $setOnInsert: { appMonth: `${key.appId}|${key.day.slice(0, 7)}` } },
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
      .map(({ _id, calls, errors, promptTokens, completionTokens, images, cost }) => ({
        calls,
        errors,
        promptTokens,
        completionTokens,
        images,
        cost,
        ...keyOf(_id),
      }))
      .filter((usage) => usage.day >= from && usage.day <= to)
      .sort((a, b) =>
        a.day === b.day ? (a.model < b.model ? -1 : a.model > b.model ? 1 : 0) : a.day < b.day ? -1 : 1,
      );
  }
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
