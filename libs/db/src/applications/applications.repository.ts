import { Injectable } from '@nestjs/common';
import { InjectModel } from '@nestjs/mongoose';
import { Model } from 'mongoose';
import { Application } from './application.schema';

export type ApplicationRecord = Application;
export type SealedSecretKey = Pick<ApplicationRecord, '_id' | 'secretKeyEnc'>;
export type NewApplication = Omit<Application, 'createdAt' | 'updatedAt' | 'status'>;

@Injectable()
export class ApplicationsRepository {
  constructor(@InjectModel(Application.name) private readonly model: Model<Application>) {}

  async create(app: NewApplication): Promise<ApplicationRecord> {
    const now = new Date();
    const doc = await this.model.create({ ...app, status: 'active', createdAt: now, updatedAt: now });
    return doc.toObject();
  }

  findById(appId: string): Promise<ApplicationRecord | null> {
    return this.model.findById(appId).lean<ApplicationRecord>().exec();
  }

  /** The application if `ownerId` owns it: another user's application reads as absent. */
  async findOwned(appId: string, ownerId: string): Promise<ApplicationRecord | null> {
    const app = await this.findById(appId);
    return app?.ownerId === ownerId ? app : null;
  }

  updateOwned(
    appId: string,
    ownerId: string,
    changes: Partial<NewApplication> & { status?: 'active' | 'revoked' },
  ): Promise<ApplicationRecord | null> {
    return this.model
      .findOneAndUpdate({ _id: appId, ownerId }, { $set: { ...changes, updatedAt: new Date() } }, { new: true })
      .lean<ApplicationRecord>()
      .exec();
  }

  /** Only while the URL is still the one that answered 410: a URL saved since then stays enabled. */
  async disableCallback(appId: string, url: string): Promise<void> {
    await this.model.updateOne({ _id: appId, callbackUrl: url }, { $set: { callbackDisabledAt: new Date() } }).exec();
  }

  /** Every application's id and creation time, for sweeps that go through them all. */
  listCreated(): Promise<Pick<ApplicationRecord, '_id' | 'createdAt'>[]> {
    return this.model.find({}, { _id: 1, createdAt: 1 }).lean<Pick<ApplicationRecord, '_id' | 'createdAt'>[]>().exec();
  }

  /** Every application's id and sealed Secret Key, for re-sealing them under a new master key. */
  listSealedSecretKeys(): Promise<SealedSecretKey[]> {
    return this.model.find({}, { _id: 1, secretKeyEnc: 1 }).lean<SealedSecretKey[]>().exec();
  }

  /**
   * Each application's sealed Secret Key replaced where it still holds `from`, so a Secret Key reset since it was
   * read keeps its new value. One update per application, sent together: the embedded database stalled on a
   * bulkWrite of 1,000. Answers how many were replaced.
   */
  async replaceSealedSecretKeys(changes: { appId: string; from: string; to: string }[]): Promise<number> {
    const results = await Promise.all(
      changes.map(({ appId, from, to }) =>
        this.model.updateOne({ _id: appId, secretKeyEnc: from }, { $set: { secretKeyEnc: to } }).exec(),
      ),
    );
    return results.reduce((replaced, result) => replaced + result.modifiedCount, 0);
  }

  list(ownerId?: string): Promise<ApplicationRecord[]> {
    const filter = ownerId ? { ownerId } : {};
    return this.model.find(filter).sort({ createdAt: 1 }).lean<ApplicationRecord[]>().exec();
  }

  /**
   * One page of every account's applications in `_id` order, after `cursor` (an `_id`): `limit + 1` are read so the
   * caller knows whether a next page exists. Each page is one read by the `_id` index, whatever the page number.
   */
  page(cursor: string | undefined, limit: number): Promise<ApplicationRecord[]> {
    return this.model
      .find(cursor ? { _id: { $gt: cursor } } : {}, { secretKeyEnc: 0 })
      .sort({ _id: 1 })
      .limit(limit + 1)
      .lean<ApplicationRecord[]>()
      .exec();
  }
}
