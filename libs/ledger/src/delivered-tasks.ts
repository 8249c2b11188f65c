import { decodeOutcome, TaskOutcome } from '@gateway/queue';
import { GatewayRedis, RedisKeys } from '@gateway/redis';
import { Injectable } from '@nestjs/common';
import type Redis from 'ioredis';

/** The consumer group of every worker's RecordWriter on the record stream. */
const WRITERS = 'writers';

/** An entry of the record stream: a delivered task whose MongoDB record is still to be written. */
export interface StreamedTask {
  /** The stream entry's id, which settling acknowledges. */
  entryId: string;
  taskId: string;
}

/** A delivered task whose record is still to be written, with what its delivery filed. */
export interface DeliveredTask {
  taskId: string;
  /** The record's fields, as OutcomeDelivery filed them (readFiledRecord). */
  record: string;
  /** Its delivered outcome; null only if the outcome key was lost (Redis without its data). */
  outcome: TaskOutcome | null;
}

/** XREADGROUP / XAUTOCLAIM entries: `[id, [field, value, …] | null]`; a null is an entry deleted meanwhile. */
type RawEntries = [string, string[] | null][];

/**
 * Delivered tasks awaiting their MongoDB record (docs/decisions/exact-usage.md), on a Redis stream read by one
 * consumer group. The delivery script adds the entry beside the outcome and the filed record; a writer reads entries,
 * writes their records and settles them (acknowledged, deleted, keys gone) in one MULTI. An entry a writer took and
 * never settled (it died, MongoDB hung) stays in the group's pending list, and another writer claims it once it has
 * been idle long enough: redelivery is the stream's, not the code's.
 */
@Injectable()
export class DeliveredTasks {
  private readonly redis: Redis;
  private readonly keys: RedisKeys;

  constructor(redis: GatewayRedis) {
    this.redis = redis.client;
    this.keys = redis.keys;
  }

  /** Makes the writers' group (and the stream) unless they exist; from the stream's start, so nothing is skipped. */
  async ensureGroup(): Promise<void> {
    try {
      await this.redis.xgroup('CREATE', this.keys.recordStream(), WRITERS, '0', 'MKSTREAM');
    } catch (error) {
      if (!(error as Error).message.startsWith('BUSYGROUP')) throw error;
    }
  }

  /**
   * Moves the records a version before the record stream left filed (a hash and a due set) onto the stream, so a
   * deploy loses none; returns how many. Two workers doing it at once may add a task twice, which writes it once.
   */
  async moveLegacyBacklog(): Promise<number> {
    const [hash, due, stream] = [
      this.keys.legacyPendingRecords(),
      this.keys.legacyRecordsDue(),
      this.keys.recordStream(),
    ];
    let moved = 0;
    let cursor = '0';
    do {
      const [next, flat] = await this.redis.hscan(hash, cursor, 'COUNT', 500);
      cursor = next;
      if (flat.length === 0) continue;
      const multi = this.redis.multi();
      for (let i = 0; i < flat.length; i += 2) {
        const [taskId, record] = [flat[i], flat[i + 1]];
        const day = (JSON.parse(record) as { record?: { day?: string } }).record?.day ?? '';
        multi.set(this.keys.filedRecord(taskId), record).xadd(stream, '*', 'task', taskId, 'day', day);
        multi.hdel(hash, taskId).zrem(due, taskId);
      }
      await multi.exec();
      moved += flat.length / 2;
    } while (cursor !== '0');
    if (moved > 0) await this.redis.del(due);
    return moved;
  }

  /**
   * Up to `count` entries no writer has had, waiting at most `blockMs` for the first if given (on `reader`, a
   * connection of the caller's own, since the wait blocks it). A group lost with Redis's data is made again.
   */
  async readNew(consumer: string, count: number, wait?: { reader: Redis; blockMs: number }): Promise<StreamedTask[]> {
    const stream = this.keys.recordStream();
    const read = () =>
      wait
        ? wait.reader.xreadgroup(
            'GROUP',
            WRITERS,
            consumer,
            'COUNT',
            count,
            'BLOCK',
            wait.blockMs,
            'STREAMS',
            stream,
            '>',
          )
        : this.redis.xreadgroup('GROUP', WRITERS, consumer, 'COUNT', count, 'STREAMS', stream, '>');
    let reply;
    try {
      reply = await read();
    } catch (error) {
      if (!(error as Error).message.startsWith('NOGROUP')) throw error;
      await this.ensureGroup();
      reply = await read();
    }
    const streams = reply as [string, RawEntries][] | null;
    return streams ? toTasks(streams[0][1]) : [];
  }

  /** Takes over up to `count` entries another writer (or this one) took and has not settled for `idleMs`. */
  async reclaim(consumer: string, idleMs: number, count: number): Promise<StreamedTask[]> {
    const reply = (await this.redis.xautoclaim(
      this.keys.recordStream(),
      WRITERS,
      consumer,
      idleMs,
      '0-0',
      'COUNT',
      count,
    )) as [string, RawEntries];
    return toTasks(reply[1]);
  }

  /** What the deliveries of `tasks` filed, in one round trip; a task whose record key is gone is left out. */
  async load(tasks: StreamedTask[]): Promise<DeliveredTask[]> {
    if (tasks.length === 0) return [];
    const texts = await this.redis.mget(
      tasks.flatMap(({ taskId }) => [this.keys.filedRecord(taskId), this.keys.outcome(taskId)]),
    );
    return tasks.flatMap(({ taskId }, i) => {
      const [record, outcome] = [texts[2 * i], texts[2 * i + 1]];
      return record ? [{ taskId, record, outcome: outcome ? decodeOutcome(outcome).outcome : null }] : [];
    });
  }

  /** The delivered task, if its record is still to be written (GET /v1/tasks reads it meanwhile). */
  async find(taskId: string): Promise<DeliveredTask | null> {
    const [record, outcome] = await this.redis.mget(this.keys.filedRecord(taskId), this.keys.outcome(taskId));
    return record ? { taskId, record, outcome: outcome ? decodeOutcome(outcome).outcome : null } : null;
  }

  /** The records are written: the entries are acknowledged and deleted, the outcomes and filed records go. */
  async settle(tasks: StreamedTask[]): Promise<void> {
    if (tasks.length === 0) return;
    const stream = this.keys.recordStream();
    const ids = tasks.map(({ entryId }) => entryId);
    const replies = await this.redis
      .multi()
      .xack(stream, WRITERS, ...ids)
      .xdel(stream, ...ids)
      .del(...tasks.flatMap(({ taskId }) => [this.keys.outcome(taskId), this.keys.filedRecord(taskId)]))
      .exec();
    const failure = replies?.find(([error]) => error)?.[0];
    if (failure) throw failure;
  }

  /** How many delivered tasks await their record. */
  count(): Promise<number> {
    return this.redis.xlen(this.keys.recordStream());
  }

  /** The days (YYYY-MM-DD) of the records still to be written, with how many each. */
  async pendingDays(): Promise<Map<string, number>> {
    const days = new Map<string, number>();
    const stream = this.keys.recordStream();
    for (let start = '-'; ;) {
      const page = (await this.redis.xrange(stream, start, '+', 'COUNT', 1_000)) as RawEntries;
      for (const [, fields] of page) {
        const day = fields ? fieldOf(fields, 'day') : undefined;
        if (day) days.set(day, (days.get(day) ?? 0) + 1);
      }
      if (page.length < 1_000) return days;
      start = `(${page[page.length - 1][0]}`;
    }
  }

  /** Removes writers that hold nothing and have not read for `idleMs` (processes that ended), so the group stays small. */
  async forgetIdleWriters(idleMs: number): Promise<number> {
    const stream = this.keys.recordStream();
    const consumers = (await this.redis.xinfo('CONSUMERS', stream, WRITERS)) as (string | number)[][];
    let forgotten = 0;
    for (const fields of consumers) {
      const info = Object.fromEntries(pairs(fields));
      if (Number(info.pending) === 0 && Number(info.idle) > idleMs) {
        await this.redis.xgroup('DELCONSUMER', stream, WRITERS, String(info.name));
        forgotten++;
      }
    }
    return forgotten;
  }
}

function toTasks(entries: RawEntries): StreamedTask[] {
  return entries.flatMap(([entryId, fields]) => {
    const taskId = fields ? fieldOf(fields, 'task') : undefined;
    return taskId ? [{ entryId, taskId }] : [];
  });
}

function fieldOf(fields: string[], name: string): string | undefined {
  for (let i = 0; i < fields.length; i += 2) if (fields[i] === name) return fields[i + 1];
  return undefined;
}

function pairs(flat: (string | number)[]): [string, string | number][] {
  const out: [string, string | number][] = [];
  for (let i = 0; i < flat.length; i += 2) out.push([String(flat[i]), flat[i + 1]]);
  return out;
}
