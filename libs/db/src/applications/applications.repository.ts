import { Injectable } from '@nestjs/common';
import { InjectModel } from '@nestjs/mongoose';
import { Model } from 'mongoose';
import { FeedPages, FeedSlice } from '../feeds/feed-pages';
import { Application } from './application.schema';

export type ApplicationRecord = Application;
export type SealedSecretKey = Pick<ApplicationRecord, '_id' | 'secretKeyEnc'>;
export type NewApplication = Omit<Application, 'createdAt' | 'updatedAt' | 'status'>;

/**
 * Every application is filed, in creation order, in one feed that operators list newest first: the key `all` and
 * one undated "day" (a feed's day only groups its pages; this feed has no retention and no date range), so any page
 * of the listing is a few reads of 25-row feed pages by equality, at any number of applications.
 */
const EVERY_APPLICATION = { key: 'all', day: '2000-01-01' } as const;

/** What a listed application's feed row holds: its id. The record itself is read by id, as it is now. */
interface ListedApplication {
  _id: string;
  day: string;
}

@Injectable()
export class ApplicationsRepository {
  constructor(
    @InjectModel(Application.name) private readonly model: Model<Application>,
    private readonly feeds: FeedPages,
  ) {}

  /** Stores an application, then files it in the operators' listing (numbered first, listed once stored). */
  async create(app: NewApplication): Promise<ApplicationRecord> {
    const now = new Date();
    const [place] = await this.feeds.place('applications', EVERY_APPLICATION.key, EVERY_APPLICATION.day, 1);
    const doc = await this.model.create({ ...app, status: 'active', createdAt: now, updatedAt: now });
    await this.feeds.file('applications', { _id: app._id, day: EVERY_APPLICATION.day }, place);
    return doc.toObject();
  }

  /**
   * Files applications that are not in the operators' listing yet (stored before it existed), oldest first, 500 to a
   * write. Filing is idempotent per application: one filed already keeps its place (its new number goes unused).
   */
  async fileInListing(apps: Pick<ApplicationRecord, '_id' | 'createdAt'>[]): Promise<void> {
    const ordered = [...apps].sort((a, b) => new Date(a.createdAt).getTime() - new Date(b.createdAt).getTime());
    for (let start = 0; start < ordered.length; start += 500) {
      const batch = ordered.slice(start, start + 500);
      const places = await this.feeds.place('applications', EVERY_APPLICATION.key, EVERY_APPLICATION.day, batch.length);
      await this.feeds.fileEach(
        'applications',
        batch.map((app, i) => ({ record: { _id: app._id, day: EVERY_APPLICATION.day }, place: places[i] })),
      );
    }
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
   * One page of every account's applications, newest first, after `cursor` (the `next` of the page before): the
   * ids from the listing's feed pages, then each application by `_id`, all at once. Throws InvalidCursorError for a
   * cursor the listing did not hand out.
   */
  async newestFirst(cursor: string | undefined, limit: number): Promise<FeedSlice<ApplicationRecord>> {
    const { day, key } = EVERY_APPLICATION;
    const slice = await this.feeds.list<ListedApplication>(
      'applications',
      key,
      { from: day, to: day, limit, cursor },
      (row) => row,
    );
    const apps = await Promise.all(
      slice.data.map(({ _id }) => this.model.findById(_id, { secretKeyEnc: 0 }).lean<ApplicationRecord>().exec()),
    );
    return { data: apps.filter((app): app is ApplicationRecord => app !== null), next: slice.next };
  }
}
