import { newId, utcDay } from '@gateway/common';
import { Injectable } from '@nestjs/common';
import { InjectModel } from '@nestjs/mongoose';
import { Model } from 'mongoose';
import { FeedName, FeedPages, FeedQuery, FeedSlice } from '../feeds/feed-pages';
import { reviveDates } from '../internal/revive-dates';
import { AuditRecord } from './audit-record.schema';

/** What an action reports; the repository adds the id, the time and the day. */
export type AuditEntry = Omit<AuditRecord, '_id' | 'createdAt' | 'day'>;

/** Whose records a listing reads: everyone's (operators), one application's, or the applications of one owner. */
export type AuditScope = { all: true } | { appId: string } | { ownerId: string };

const ALL = 'all';

/**
 * The audit log: insert only, nothing here updates or deletes a record. Each record is also filed in the feeds a
 * console listing reads by equality (FeedPages): everyone's, its application's and its owner's, each once more under
 * its action, so a listing filtered by action reads only that action's pages at any size of the log.
 */
@Injectable()
export class AuditLogRepository {
  constructor(
    @InjectModel(AuditRecord.name) private readonly model: Model<AuditRecord>,
    private readonly feeds: FeedPages,
  ) {}

  async record(entry: AuditEntry): Promise<AuditRecord> {
    const [recorded] = await this.recordEach([entry]);
    return recorded;
  }

  /**
   * Inserts records (the time is now unless given: bench:audit back-dates them), numbered in their feeds first, so
   * a record is listed only once it is stored: one counter raise per feed, key and day, one insert, one filing per
   * feed.
   */
  async recordEach(entries: (AuditEntry & { createdAt?: Date })[]): Promise<AuditRecord[]> {
    const records: AuditRecord[] = entries.map((entry) => {
      const createdAt = entry.createdAt ?? new Date();
      return { ...entry, _id: newId('aud'), createdAt, day: utcDay(createdAt) };
    });
    const placed = await this.feeds.placeInFeeds(
      records.flatMap((record) => feedsOf(record).map(([feed, key]) => ({ feed, key, record }))),
    );
    await this.model.insertMany(records);
    await Promise.all(placed.map(({ feed, filings }) => this.feeds.fileEach(feed, filings)));
    return records;
  }

  /** Newest first, optionally one action's only. */
  list(scope: AuditScope, action: string | undefined, query: FeedQuery): Promise<FeedSlice<AuditRecord>> {
    const [feed, key] = feedOf(scope, action);
    return this.feeds.list<AuditRecord>(feed, key, query, (row) => reviveDates(row, 'createdAt'));
  }

  /** Every record of one UTC day, oldest first: what `gw audit` exports. */
  async listDay(day: string): Promise<AuditRecord[]> {
    const records = await this.model.find({ day }).lean<AuditRecord[]>().exec();
    return records.sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || (a._id < b._id ? -1 : 1));
  }
}

function feedOf(scope: AuditScope, action: string | undefined): [FeedName, string] {
  const [kind, key] =
    'appId' in scope
      ? (['app', scope.appId] as const)
      : 'ownerId' in scope
        ? (['owner', scope.ownerId] as const)
        : (['all', ALL] as const);
  return action === undefined ? [`audit-${kind}`, key] : [`audit-${kind}-action`, `${key}:${action}`];
}

/** The feeds one record is filed in: the listings that show it. */
function feedsOf(record: AuditRecord): [FeedName, string][] {
  const scopes: AuditScope[] = [{ all: true }];
  if (record.appId) scopes.push({ appId: record.appId });
  if (record.ownerId) scopes.push({ ownerId: record.ownerId });
  return scopes.flatMap((scope) => [feedOf(scope, undefined), feedOf(scope, record.action)]);
}
