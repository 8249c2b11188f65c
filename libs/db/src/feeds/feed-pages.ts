import { GatewayRedis } from '@gateway/queue';
import { AppConfig, utcDaysBefore } from '@gateway/common';
import { Injectable } from '@nestjs/common';
import { InjectModel } from '@nestjs/mongoose';
import { Model } from 'mongoose';
import { FeedDirectory } from './feed-directory.schema';

/** Records listed per application newest first; each name is a feed of its own. */
export type FeedName = 'tasks' | 'billing' | 'webhooks';

/** Where a record sits in its feed: `page` is the equality key it is listed by, `seq` its order within the day. */
export interface FeedPlace {
  page: string;
  seq: number;
}

/** The fields a listed record carries. */
export interface FeedEntry {
  _id: string;
  seq: number;
  day: string;
}

export interface FeedQuery {
  /** Oldest and newest UTC day to list, inclusive. */
  from: string;
  to: string;
  limit: number;
  /** The `next` of the previous page of results. */
  cursor?: string;
}

export interface FeedSlice<T> {
  data: T[];
  /** Pass as `cursor` for the records after these; null at the end. */
  next: string | null;
}

/**
 * Records per page: a listing reads whole pages, and FerretDB's cost is per document read, so small pages keep
 * a newest-20 listing to one or two short queries.
 */
export const FEED_PAGE_SIZE = 25;
/** The Redis counters outlive their day by this much: a task created before midnight may be recorded after it. */
const COUNTER_TTL_SECONDS = 3 * 86_400;
const DUPLICATE_KEY = 11000;

/**
 * Newest-first listings that cost the same at any size. The embedded database (FerretDB) serves equality filters by
 * index but pushes down no range, sort or limit, so "the newest 20 of an application" cannot be a sorted index scan
 * there. Instead each record is numbered per (feed, application, UTC day) by a Redis counter and filed under the page
 * `${feed}|${appId}|${day}|${seq / 25}`: a listing reads whole pages by equality, newest page first, and sorts at
 * most a page of records in memory. The directory says which pages each day has. MongoDB serves the same equality by the
 * `page` index.
 */
@Injectable()
export class FeedPages {
  private readonly prefix: string;

  constructor(
    config: AppConfig,
    private readonly redis: GatewayRedis,
    @InjectModel(FeedDirectory.name) private readonly directory: Model<FeedDirectory>,
  ) {
    this.prefix = config.QUEUE_PREFIX;
  }

  /** Numbers `count` new records of one application and day; records in the directory any page they open. */
  async place(feed: FeedName, appId: string, day: string, count: number): Promise<FeedPlace[]> {
    const key = `${this.prefix}:feed:${feed}:${appId}:${day}`;
    const [[incrError, last]] = (await this.redis.client.multi().incrby(key, count).expire(key, COUNTER_TTL_SECONDS).exec())!;
    if (incrError) throw incrError;
    const places = Array.from({ length: count }, (_, i) => {
      const seq = (last as number) - count + 1 + i;
      return { seq, page: pageKey(feed, appId, day, pageOf(seq)) };
    });
    const opened = places.filter(({ seq }) => (seq - 1) % FEED_PAGE_SIZE === 0).map(({ seq }) => pageOf(seq));
    if (opened.length > 0) await this.open(feed, appId, day, Math.max(...opened));
    return places;
  }

  /**
   * One slice of a feed, newest first: `fetchPage` reads the records filed under a page key. A day's pages are
   * read from its last down; the page past the directory's last is looked at too, in case the directory write of
   * a page opened concurrently lost a race (FerretDB's updates are read-modify-write).
   */
  async list<T extends FeedEntry>(feed: FeedName, appId: string, query: FeedQuery, fetchPage: (page: string) => Promise<T[]>): Promise<FeedSlice<T>> {
    const after = query.cursor ? parseCursor(query.cursor) : undefined;
    const newest = after && after.day < query.to ? after.day : query.to;
    const lastPages = await this.lastPages(feed, appId, query.from, newest);
    await this.addCountedPages(lastPages, feed, appId, query.from, newest);
    const found: T[] = [];
    for (let day = newest; day >= query.from && found.length <= query.limit; day = utcDaysBefore(day, 1)) {
      let page = lastPages.get(day);
      if (page === undefined) continue;
      let records: T[];
      if (after?.day === day) {
        // Resuming inside this day: start at the cursor's page; later pages were listed already.
        page = Math.min(page, pageOf(after.seq));
        records = await fetchPage(pageKey(feed, appId, day, page));
      } else {
        // The day's last page and the one past it at once: the second is almost always empty.
        let beyond: T[];
        [records, beyond] = await Promise.all([fetchPage(pageKey(feed, appId, day, page)), fetchPage(pageKey(feed, appId, day, page + 1))]);
        const listed = page;
        while (beyond.length > 0) {
          [records, page] = [beyond, page + 1];
          beyond = await fetchPage(pageKey(feed, appId, day, page + 1));
        }
        if (page > listed) await this.open(feed, appId, day, page);
      }
      for (; page >= 0 && found.length <= query.limit; page--) {
        found.push(...pick(records, after).sort(newestFirst));
        if (page > 0 && found.length <= query.limit) records = await fetchPage(pageKey(feed, appId, day, page - 1));
      }
    }
    const data = found.slice(0, query.limit);
    const last = data[data.length - 1];
    return { data, next: found.length > query.limit && last ? `${last.day}.${last.seq}.${last._id}` : null };
  }

  private async open(feed: FeedName, appId: string, day: string, page: number): Promise<void> {
    const filter = { _id: `${feed}|${appId}|${day.slice(0, 7)}` };
    const update = { $max: { [`lastPage.d${day.slice(8, 10)}`]: page } };
    try {
      await this.directory.updateOne(filter, update, { upsert: true }).exec();
    } catch (error) {
      // Two writers created the month's document at once: the other insert won, so update it.
      if ((error as { code?: number }).code !== DUPLICATE_KEY) throw error;
      await this.directory.updateOne(filter, update).exec();
    }
  }

  /** Every page key of one application's feed on `day`, oldest first: what a retention sweep deletes. */
  async pagesOfDay(feed: FeedName, appId: string, day: string): Promise<string[]> {
    const last = (await this.lastPages(feed, appId, day, day)).get(day);
    return last === undefined ? [] : Array.from({ length: last + 2 }, (_, page) => pageKey(feed, appId, day, page));
  }

  /**
   * The days whose Redis counters are still alive know their last page exactly: under concurrent writers the
   * directory's read-modify-write on FerretDB can lag behind by a page or more.
   */
  private async addCountedPages(pages: Map<string, number>, feed: FeedName, appId: string, from: string, to: string): Promise<void> {
    const days: string[] = [];
    for (let day = to; day >= from && days.length < COUNTER_TTL_SECONDS / 86_400; day = utcDaysBefore(day, 1)) days.push(day);
    const counts = await this.redis.client.mget(days.map((day) => `${this.prefix}:feed:${feed}:${appId}:${day}`));
    counts.forEach((count, i) => {
      if (count === null || Number(count) < 1) return;
      pages.set(days[i], Math.max(pages.get(days[i]) ?? 0, pageOf(Number(count))));
    });
  }

  /** The last page of each day in [from, to] that has any, read with one look-up per month. */
  private async lastPages(feed: FeedName, appId: string, from: string, to: string): Promise<Map<string, number>> {
    const months: string[] = [];
    for (let month = to.slice(0, 7); month >= from.slice(0, 7); month = previousMonth(month)) months.push(month);
    const docs = await Promise.all(months.map((month) => this.directory.findById(`${feed}|${appId}|${month}`).lean<FeedDirectory>().exec()));
    const pages = new Map<string, number>();
    docs.forEach((doc, i) => {
      for (const [field, page] of Object.entries(doc?.lastPage ?? {})) pages.set(`${months[i]}-${field.slice(1)}`, page);
    });
    return pages;
  }
}

function pageOf(seq: number): number {
  return Math.floor((seq - 1) / FEED_PAGE_SIZE);
}

function pageKey(feed: FeedName, appId: string, day: string, page: number): string {
  return `${feed}|${appId}|${day}|${page}`;
}

function previousMonth(month: string): string {
  const [year, m] = month.split('-').map(Number);
  return m === 1 ? `${year - 1}-12` : `${year}-${String(m - 1).padStart(2, '0')}`;
}

/** Newest first: by day, then number, then id (numbers repeat only if the Redis counters were lost). */
function newestFirst(a: FeedEntry, b: FeedEntry): number {
  if (a.day !== b.day) return a.day < b.day ? 1 : -1;
  if (a.seq !== b.seq) return b.seq - a.seq;
  return a._id < b._id ? 1 : a._id > b._id ? -1 : 0;
}

function pick<T extends FeedEntry>(records: T[], after?: FeedEntry): T[] {
  return after ? records.filter((record) => newestFirst(after, record) < 0) : records;
}

function parseCursor(cursor: string): FeedEntry {
  const [day, seq, ...id] = cursor.split('.');
  if (!/^\d{4}-\d{2}-\d{2}$/.test(day) || !/^\d+$/.test(seq ?? '') || id.length === 0) throw new InvalidCursorError(cursor);
  return { day, seq: Number(seq), _id: id.join('.') };
}

/** A `cursor` that no listing handed out. */
export class InvalidCursorError extends Error {
  constructor(cursor: string) {
    super(`cursor "${cursor.slice(0, 80)}" is not one this listing returned`);
  }
}
