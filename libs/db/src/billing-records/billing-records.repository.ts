import { Injectable } from '@nestjs/common';
import { InjectModel } from '@nestjs/mongoose';
import { Model } from 'mongoose';
import { isDuplicateKey } from '../internal/duplicate-key';
import { FeedPages, FeedQuery, FeedSlice } from '../feeds/feed-pages';
import { reviveDates } from '../internal/revive-dates';
import { BillingRecord } from './billing-record.schema';

/** What the worker bills; the repository files it in the application's billing feed. */
export type NewBillingRecord = Omit<BillingRecord, '_id'>;

@Injectable()
export class BillingRecordsRepository {
  constructor(
    @InjectModel(BillingRecord.name) private readonly model: Model<BillingRecord>,
    private readonly feeds: FeedPages,
  ) {}

  /**
   * Bills each delivered image once; records that already exist (an earlier attempt) are left as they are. Returns
   * how many are new. All records of one call belong to one task, hence to one application and day.
   */
  async billImages(records: NewBillingRecord[]): Promise<number> {
    if (records.length === 0) return 0;
    const places = await this.feeds.place('billing', records[0].appId, records[0].day, records.length);
    const billed = records.map((record) => ({ _id: `${record.taskId}:${record.index}`, ...record }));
    const inserted = await this.insert(billed);
    // Rows of records an earlier attempt billed and filed stay as they were: filing is idempotent per record id.
    await Promise.all(billed.map((record, i) => this.feeds.file('billing', record, places[i])));
    return inserted;
  }

  private async insert(billed: BillingRecord[]): Promise<number> {
    try {
      const inserted = await this.model.insertMany(billed, { ordered: false, rawResult: true });
      return inserted.insertedCount;
    } catch (error) {
      type WriteError = { code?: number; err?: { code?: number } };
      const { writeErrors, insertedDocs, result } = error as {
        writeErrors?: WriteError[];
        insertedDocs?: unknown[];
        result?: { insertedCount?: number };
      };
      const errors = Array.isArray(writeErrors) ? writeErrors : writeErrors ? [writeErrors] : [];
      // The driver's WriteError carries `code`; mongoose's insertMany wraps it as { err, index }.
      if (errors.length === 0 || errors.some((e) => !isDuplicateKey(e))) throw error;
      return result?.insertedCount ?? insertedDocs?.length ?? billed.length - errors.length;
    }
  }

  /** The records of one task of this application, by image index; another application's task has none. */
  async listForTask(taskId: string, appId: string): Promise<BillingRecord[]> {
    const records = await this.model.find({ taskId }).lean<BillingRecord[]>().exec();
    return records.filter((record) => record.appId === appId).sort((a, b) => a.index - b.index);
  }

  /** An application's records over a range of days, most recently billed first. */
  listForApp(appId: string, query: FeedQuery): Promise<FeedSlice<BillingRecord>> {
    return this.feeds.list<BillingRecord>('billing', appId, query, (row) => reviveDates(row, 'createdAt'));
  }
}
