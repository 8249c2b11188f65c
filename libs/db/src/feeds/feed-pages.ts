import { GatewayRedis, RedisKeys } from '@gateway/redis';
import { utcDay, utcDaysBefore } from '@gateway/common';
import { Injectable } from '@nestjs/common';
import { InjectModel } from '@nestjs/mongoose';
import { Model } from 'mongoose';
import { isDuplicateKey } from '../internal/duplicate-key';
import { GroupCommitInserter, insertTargetOf } from '../internal/group-commit';
import { FeedDirectory } from './feed-directory.schema';
import { FeedRow } from './feed-row.schema';

/**
 * Records listed per application newest first; each name is a feed of its own. The audit log files each record in
 * several feeds (everyone's, its application's, its owner's, each also by action), and a task is filed once more per
 * filter the console lists tasks by (`tasks-model`, …, keyed by application and value) and once in its account's
 * (`tasks-owner`): a row's id holds its feed's
 * name. `applications` lists every application, for operators, under one key and one undated day
 * (ApplicationsRepository).
 */
export type FeedName =
  | 'tasks'
  | `tasks-${'model' | 'status' | 'code' | 'key' | 'mode' | 'owner'}`
  | 'billing'
  | 'webhooks'
  | 'applications'
  | `audit-${'all' | 'app' | 'owner'}${'' | '-action'}`;

/** Where a record sits in its feed: `page` is the equality key it is listed by, `seq` its order within the day. */
export interface FeedPlace {
  page: string;
  seq: number;
}

/** The fields every listed record has. */
export interface FeedRecord {
  _id: string;
  day: string;
}

/** A record read back from its feed row, with its place in the day's order. */
interface Listed<T> {
  record: T;
  seq: number;
}

/** A position in a listing: a cursor names the last record of the previous slice. */
interface Position {
  day: string;
  seq: number;
  id: string;
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
 * Records per page. On FerretDB a query costs about 1 ms and a feed row about 0.1 ms more: a listing of L records
 * reads about L/P + 1 pages and P/2 rows past its limit, cheapest near P = sqrt(20 L), 20 to 30 for the console's
 * 20 to 50 rows.
 */
export const FEED_PAGE_SIZE = 25;
/**
 * A day's Redis counter lives this long after its last increment: long enough that a listing over the console's
 * 30 days plans every page from exact counts (about 100 bytes per application, feed and day). Older days, and
 * counters Redis lost, are planned from the directory.
 */
const COUNTER_TTL_SECONDS = 35 * 86_400;

/**
 * Newest-first listings that cost the same at any size. The embedded database (FerretDB) serves equality filters by
 * index but pushes down no range, sort or limit, so "the newest 20 of an application" cannot be a sorted index scan
 * there. Instead each record is numbered per (feed, application, UTC day) by a Redis counter and filed as a row
 * (FeedRow) under the page `${feed}|${appId}|${day}|${seq / FEED_PAGE_SIZE}`: a listing reads the pages it needs by
 * equality and sorts the few rows it read in memory. The directory says which pages each day has. MongoDB serves the
 * same equality by the `page` index.
 */
@Injectable()
export class FeedPages {
  private readonly keys: RedisKeys;
  private readonly rowInserter: GroupCommitInserter<FeedRow>;

  constructor(
    private readonly redis: GatewayRedis,
    @InjectModel(FeedDirectory.name) private readonly directory: Model<FeedDirectory>,
    @InjectModel(FeedRow.name) private readonly rows: Model<FeedRow>,
  ) {
    this.keys = redis.keys;
    this.rowInserter = new GroupCommitInserter<FeedRow>(() => insertTargetOf(this.rows));
  }

  /** Numbers `count` new records of one application and day; records in the directory any page they open. */
  async place(feed: FeedName, appId: string, day: string, count: number): Promise<FeedPlace[]> {
    const key = this.keys.feedCounter(feed, appId, day);
    let last = await this.increment(key, count);
    if (last === count) {
      // A counter's first numbers: if the directory already lists pages of this day, Redis lost the counter (a
      // restart without its data). Numbering again from 1 would leave a listing that trusts the counter short of
      // the earlier records, so the counter moves past every page the directory knows of.
      const known = await this.directory.findById(`${feed}|${appId}|${day}`).lean<FeedDirectory>().exec();
      if (known) last = await this.increment(key, (known.last + 1) * FEED_PAGE_SIZE);
    }
    const places = Array.from({ length: count }, (_, i) => {
      const seq = last - count + 1 + i;
      return { seq, page: pageKey(feed, appId, day, pageOf(seq)) };
    });
    const opened = places.filter(({ seq }) => (seq - 1) % FEED_PAGE_SIZE === 0).map(({ seq }) => pageOf(seq));
    if (opened.length > 0) await this.open(feed, appId, day, Math.max(...opened));
    return places;
  }

  /** Numbers records of any applications and days, in their order: one `place` per application and day. */
  async placeEach(feed: FeedName, records: { appId: string; day: string }[]): Promise<FeedPlace[]> {
    const groups = new Map<string, number[]>();
    records.forEach(({ appId, day }, index) => {
      const key = `${appId}|${day}`;
      const group = groups.get(key);
      if (group) group.push(index);
      else groups.set(key, [index]);
    });
    const places: FeedPlace[] = new Array<FeedPlace>(records.length);
    await Promise.all(
      [...groups.values()].map(async (indexes) => {
        const { appId, day } = records[indexes[0]];
        const placed = await this.place(feed, appId, day, indexes.length);
        indexes.forEach((index, i) => (places[index] = placed[i]));
      }),
    );
    return places;
  }

  /**
   * Numbers records each in the feed and under the key given (a record may be in several): one `placeEach` per
   * feed. Returns each feed's filings, for `fileEach` once the records are stored.
   */
  async placeInFeeds<T extends FeedRecord>(
    entries: { feed: FeedName; key: string; record: T }[],
  ): Promise<{ feed: FeedName; filings: { record: T; place: FeedPlace }[] }[]> {
    const byFeed = new Map<FeedName, { record: T; key: string }[]>();
    for (const { feed, key, record } of entries) {
      const list = byFeed.get(feed) ?? [];
      list.push({ record, key });
      byFeed.set(feed, list);
    }
    return Promise.all(
      [...byFeed].map(async ([feed, list]) => {
        const places = await this.placeEach(
          feed,
          list.map(({ record, key }) => ({ appId: key, day: record.day })),
        );
        return { feed, filings: list.map(({ record }, i) => ({ record, place: places[i] })) };
      }),
    );
  }

  private async increment(key: string, by: number): Promise<number> {
    const replies = await this.redis.client.multi().incrby(key, by).expire(key, COUNTER_TTL_SECONDS).exec();
    if (!replies) throw new Error(`Redis discarded the MULTI incrementing ${key}`);
    const [[error, value]] = replies;
    if (error) throw error;
    return value as number;
  }

  /** Files a record at its place in a feed: what listings show. Idempotent per record id; the first filing stays. */
  async file(feed: FeedName, record: FeedRecord, place: FeedPlace): Promise<void> {
    await this.fileEach(feed, [{ record, place }]);
  }

  /** Files records at their places, in one write. */
  async fileEach(feed: FeedName, filings: { record: FeedRecord; place: FeedPlace }[]): Promise<void> {
    await this.rowInserter.insertMany(
      filings.map(({ record, place }) => ({
        _id: `${feed}|${record._id}`,
        page: place.page,
        seq: place.seq,
        row: JSON.stringify(record),
      })),
    );
  }

  /** Deletes the rows filed under one page; returns how many. */
  async deleteRows(page: string): Promise<number> {
    const { deletedCount } = await this.rows.deleteMany({ page }).exec();
    return deletedCount;
  }

  /**
   * One slice of a feed, newest first; `revive` turns a row's parsed JSON back into its record (dates, mostly). The
   * pages the slice needs are worked out from how many records each day has and read at once, across days. A live
   * Redis counter says exactly how many a day has; past it, the directory gives the day's last page, and the page
   * past that is read too, in case the directory write of a page opened concurrently lost a race (FerretDB's updates
   * are read-modify-write).
   */
  async list<T extends FeedRecord>(
    feed: FeedName,
    appId: string,
    query: FeedQuery,
    revive: (row: T) => T,
  ): Promise<FeedSlice<T>> {
    const after = query.cursor ? parseCursor(query.cursor) : undefined;
    const newest = after && after.day < query.to ? after.day : query.to;
    const counts = await this.countedRecords(feed, appId, query.from, newest);
    const directory = new DirectoryMonths((month) => this.lastPagesOfMonth(feed, appId, month));
    const read = async (day: string, page: number): Promise<Listed<T>[]> => {
      const rows = await this.rows
        .find({ page: pageKey(feed, appId, day, page) })
        .lean<FeedRow[]>()
        .exec();
      return rows.map(({ row, seq }) => ({ record: revive(JSON.parse(row) as T), seq }));
    };
    const wanted = query.limit + 1;
    const found: Listed<T>[] = [];
    // Where listing goes on: `top` is the number of the next record to list on `day` (or, from the directory, a
    // number on its last page), undefined until looked up.
    let day = newest;
    let top: number | undefined;
    while (found.length < wanted && day >= query.from) {
      const reads: Promise<Listed<T>[]>[] = [];
      for (let planned = found.length; planned < wanted && day >= query.from;) {
        if (top === undefined) {
          const counted = counts.get(day);
          const last = counted === undefined ? await directory.lastPage(day) : undefined;
          // From the directory, the last page has at least one record: planning on that reads a page too many
          // rather than coming back for one.
          top = counted ?? (last === undefined ? 0 : last * FEED_PAGE_SIZE + 1);
          // Resuming inside the cursor's day: its number says where, whatever the directory says.
          const resuming = after?.day === day;
          if (resuming) top = after.seq - 1;
          if (last !== undefined && !resuming) reads.push(this.readBeyond(feed, appId, day, last, read));
        }
        const lowest = Math.max(1, top - (wanted - planned) + 1);
        for (let page = pageOf(top); top >= 1 && page >= pageOf(lowest); page--) reads.push(read(day, page));
        planned += Math.max(0, top - pageOf(lowest) * FEED_PAGE_SIZE);
        top = pageOf(lowest) * FEED_PAGE_SIZE;
        if (top < 1) [day, top] = [utcDaysBefore(day, 1), undefined];
      }
      for (const records of await Promise.all(reads)) found.push(...pick(records, after));
    }
    const slice = found.map(position).sort(newestFirst).slice(0, query.limit);
    const last = slice[slice.length - 1];
    return {
      data: slice.map(({ listed }) => listed.record),
      next: found.length > query.limit && last ? `${last.day}.${last.seq}.${last.id}` : null,
    };
  }

  /** Records on the pages past `last` the directory did not know of; records the highest in the directory. */
  private async readBeyond<T>(
    feed: FeedName,
    appId: string,
    day: string,
    last: number,
    read: (day: string, page: number) => Promise<T[]>,
  ): Promise<T[]> {
    const records: T[] = [];
    let page = last + 1;
    for (let batch = await read(day, page); batch.length > 0; batch = await read(day, ++page)) records.push(...batch);
    if (page > last + 1) await this.open(feed, appId, day, page - 1);
    return records;
  }

  private async open(feed: FeedName, appId: string, day: string, page: number): Promise<void> {
    const filter = { _id: `${feed}|${appId}|${day}` };
    const update = { $max: { last: page }, $setOnInsert: { month: `${feed}|${appId}|${day.slice(0, 7)}` } };
    try {
      await this.directory.updateOne(filter, update, { upsert: true }).exec();
    } catch (error) {
      // Two writers created the day's document at once: the other insert won, so update it.
      if (!isDuplicateKey(error)) throw error;
      await this.directory.updateOne(filter, update).exec();
    }
  }

  /**
   * Runs `deletePage` over every page of one application's feed on `day`, oldest first: what a retention sweep
   * does. Past the last page the directory or a live counter knows of, pages are deleted until one holds nothing,
   * in case the directory lagged. Returns how many records were deleted.
   */
  async sweepDay(
    feed: FeedName,
    appId: string,
    day: string,
    deletePage: (page: string) => Promise<number>,
  ): Promise<number> {
    const [found, counted] = await Promise.all([
      this.directory.findById(`${feed}|${appId}|${day}`).lean<FeedDirectory>().exec(),
      this.countedRecords(feed, appId, day, day),
    ]);
    const counter = counted.get(day);
    const last = Math.max(found?.last ?? -1, counter === undefined ? -1 : pageOf(counter));
    let deleted = 0;
    for (let page = 0; page <= last; page++) deleted += await deletePage(pageKey(feed, appId, day, page));
    for (let page = last + 1, count = -1; count !== 0; page++) {
      count = await deletePage(pageKey(feed, appId, day, page));
      deleted += count;
    }
    return deleted;
  }

  /**
   * How many records each day whose Redis counter is still alive has numbered: exact, where the directory's
   * read-modify-write on FerretDB can lag behind by a page or more under concurrent writers.
   */
  private async countedRecords(feed: FeedName, appId: string, from: string, to: string): Promise<Map<string, number>> {
    // A day's counter outlives the day's last record by COUNTER_TTL_SECONDS: older days have none left to read.
    const oldestAlive = [from, utcDaysBefore(utcDay(), COUNTER_TTL_SECONDS / 86_400 + 1)].sort()[1];
    const days: string[] = [];
    for (let day = to; day >= oldestAlive; day = utcDaysBefore(day, 1)) days.push(day);
    if (days.length === 0) return new Map();
    const counts = await this.redis.client.mget(days.map((day) => this.keys.feedCounter(feed, appId, day)));
    const counted = new Map<string, number>();
    counts.forEach((count, i) => {
      if (count !== null && Number(count) >= 1) counted.set(days[i], Number(count));
    });
    return counted;
  }

  /** The directory's last page of each day of one month that has one: one query, at most 31 small documents. */
  private async lastPagesOfMonth(feed: FeedName, appId: string, month: string): Promise<Map<string, number>> {
    const days = await this.directory
      .find({ month: `${feed}|${appId}|${month}` })
      .lean<FeedDirectory[]>()
      .exec();
    return new Map(days.map((entry) => [entry._id.slice(entry._id.lastIndexOf('|') + 1), entry.last]));
  }
}

/** The directory of a listing's days, read a month at a time as the listing reaches it. */
class DirectoryMonths {
  private readonly months = new Map<string, Promise<Map<string, number>>>();

  constructor(private readonly lookUp: (month: string) => Promise<Map<string, number>>) {}

  async lastPage(day: string): Promise<number | undefined> {
    const month = day.slice(0, 7);
    let directory = this.months.get(month);
    if (!directory) {
      directory = this.lookUp(month);
      this.months.set(month, directory);
    }
    return (await directory).get(day);
  }
}

function pageOf(seq: number): number {
  return Math.floor((seq - 1) / FEED_PAGE_SIZE);
}

function pageKey(feed: FeedName, appId: string, day: string, page: number): string {
  return `${feed}|${appId}|${day}|${page}`;
}

function position<T extends FeedRecord>(listed: Listed<T>): Position & { listed: Listed<T> } {
  return { day: listed.record.day, seq: listed.seq, id: listed.record._id, listed };
}

/** Newest first: by day, then number, then id (numbers repeat only if the Redis counters were lost). */
function newestFirst(a: Position, b: Position): number {
  if (a.day !== b.day) return a.day < b.day ? 1 : -1;
  if (a.seq !== b.seq) return b.seq - a.seq;
  return a.id < b.id ? 1 : a.id > b.id ? -1 : 0;
}

function pick<T extends FeedRecord>(rows: Listed<T>[], after?: Position): Listed<T>[] {
  return after ? rows.filter((listed) => newestFirst(after, position(listed)) < 0) : rows;
}

function parseCursor(cursor: string): Position {
  const [day, seq, ...id] = cursor.split('.');
  if (!/^\d{4}-\d{2}-\d{2}$/.test(day) || !/^\d+$/.test(seq ?? '') || id.length === 0)
    throw new InvalidCursorError(cursor);
  return { day, seq: Number(seq), id: id.join('.') };
}

/** A `cursor` that no listing handed out. */
export class InvalidCursorError extends Error {
  constructor(cursor: string) {
    super(`cursor "${cursor.slice(0, 80)}" is not one this listing returned`);
  }
}
