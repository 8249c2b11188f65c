import { Injectable } from '@nestjs/common';
import { InjectModel } from '@nestjs/mongoose';
import { Model } from 'mongoose';
import { UsageCounters, UsageDaily } from './usage-daily.schema';

export interface UsageKey {
  appId: string;
  model: string;
  day: string;
}

@Injectable()
export class UsageDailyRepository {
  constructor(@InjectModel(UsageDaily.name) private readonly model: Model<UsageDaily>) {}

  /** Adds counters to their day documents, creating them as needed; one bulk write for many keys. */
  async add(increments: { key: UsageKey; counters: UsageCounters }[]): Promise<void> {
    if (increments.length === 0) return;
    await this.model.bulkWrite(
      increments.map(({ key, counters }) => ({
        updateOne: {
          filter: { _id: `${key.appId}|${key.model}|${key.day}` },
          update: { $inc: counters, $setOnInsert: key },
          upsert: true,
        },
      })),
      { ordered: false },
    );
  }

  /** Days `from`..`to` (YYYY-MM-DD, inclusive) of one application, oldest first. */
  listForApp(appId: string, from: string, to: string): Promise<UsageDaily[]> {
    return this.model.find({ appId, day: { $gte: from, $lte: to } }).sort({ day: 1, model: 1 }).lean<UsageDaily[]>().exec();
  }
}
