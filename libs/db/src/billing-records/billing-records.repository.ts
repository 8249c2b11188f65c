import { Injectable } from '@nestjs/common';
import { InjectModel } from '@nestjs/mongoose';
import { Model } from 'mongoose';
import { BillingRecord } from './billing-record.schema';

const DUPLICATE_KEY = 11000;

@Injectable()
export class BillingRecordsRepository {
  constructor(@InjectModel(BillingRecord.name) private readonly model: Model<BillingRecord>) {}

  /** Bills each delivered image once; records that already exist (an earlier attempt) are left as they are. Returns how many are new. */
  async billImages(records: BillingRecord[]): Promise<number> {
    if (records.length === 0) return 0;
    try {
      const inserted = await this.model.insertMany(records, { ordered: false, rawResult: true });
      return inserted.insertedCount;
    } catch (error) {
      type WriteError = { code?: number; err?: { code?: number } };
      const { writeErrors, insertedDocs, result } = error as { writeErrors?: WriteError[]; insertedDocs?: unknown[]; result?: { insertedCount?: number } };
      const errors = Array.isArray(writeErrors) ? writeErrors : writeErrors ? [writeErrors] : [];
      // The driver's WriteError carries `code`; mongoose's insertMany wraps it as { err, index }.
      if (errors.length === 0 || errors.some((e) => (e.code ?? e.err?.code) !== DUPLICATE_KEY)) throw error;
      return result?.insertedCount ?? insertedDocs?.length ?? records.length - errors.length;
    }
  }

  listForTask(taskId: string, appId: string): Promise<BillingRecord[]> {
    return this.model.find({ taskId, appId }).sort({ index: 1 }).lean<BillingRecord[]>().exec();
  }
}
