import { Injectable } from '@nestjs/common';
import { InjectModel } from '@nestjs/mongoose';
import { Model } from 'mongoose';
import { isDuplicateKey } from '../internal/duplicate-key';
import { SweepStateRepository } from '../sweeps/sweep-state.repository';
import { TaskBody, utcHour } from './task-body.schema';

const HOUR_MS = 3_600_000;
/** Bodies deleted per statement, and at most per pass: a pass costs the same however much is kept. */
const DELETE_BATCH = 100;
const MAX_PER_PASS = 5_000;
const SWEEP = 'task-bodies';

@Injectable()
export class TaskBodiesRepository {
  constructor(
    @InjectModel(TaskBody.name) private readonly model: Model<TaskBody>,
    private readonly sweeps: SweepStateRepository,
  ) {}

  /** Inserts bodies once per task: one an earlier attempt wrote stays as it was. */
  async insertEach(bodies: TaskBody[]): Promise<void> {
    if (bodies.length === 0) return;
    try {
      await this.model.insertMany(bodies, { ordered: false });
    } catch (error) {
      type WriteError = { code?: number; err?: { code?: number } };
      const { writeErrors } = error as { writeErrors?: WriteError | WriteError[] };
      const errors = Array.isArray(writeErrors) ? writeErrors : writeErrors ? [writeErrors] : [];
      if (errors.length === 0 || errors.some((e) => !isDuplicateKey(e))) throw error;
    }
  }

  /** The task's bodies if they belong to `appId` and have not expired; another application's read as absent. */
  async findForApp(taskId: string, appId: string, now = new Date()): Promise<TaskBody | null> {
    const body = await this.model.findById(taskId).lean<TaskBody>().exec();
    return body && body.appId === appId && new Date(body.expiresAt) > now ? body : null;
  }

  /**
   * Deletes expired bodies hour by hour, from where the last pass stopped up to the last hour wholly past, at most
   * MAX_PER_PASS a pass; an hour is done once emptied (bodies expire a day or more after they are written, never in
   * an hour already done). Until then a read leaves them out by their `expiresAt`.
   * `horizonMs`: how far back the first pass of a database looks (the longest retention). The pass stops between
   * hours at `deadline`, or once `stop` is aborted (the worker is shutting down).
   */
  async deleteExpired(now: Date, horizonMs: number, deadline = Infinity, stop?: AbortSignal): Promise<number> {
    const current = utcHour(now);
    let hour = (await this.sweeps.through(SWEEP)) ?? utcHour(now.getTime() - horizonMs - HOUR_MS);
    let deleted = 0;
    while (deleted < MAX_PER_PASS && Date.now() < deadline && !stop?.aborted) {
      const next = utcHour(Date.parse(`${hour}:00:00Z`) + HOUR_MS);
      if (next >= current) break;
      const emptied = await this.deleteHour(next, MAX_PER_PASS - deleted);
      deleted += emptied.deleted;
      if (!emptied.done) break;
      await this.sweeps.advance(SWEEP, next);
      hour = next;
    }
    return deleted;
  }

  /** Deletes up to `limit` bodies of one expiry hour, a batch at a time; `done` once none is left. */
  private async deleteHour(hour: string, limit: number): Promise<{ deleted: number; done: boolean }> {
    let deleted = 0;
    while (deleted < limit) {
      const found = await this.model
        .find({ expiresHour: hour }, { _id: 1 })
        .limit(Math.min(DELETE_BATCH, limit - deleted))
        .lean<Pick<TaskBody, '_id'>[]>()
        .exec();
      if (found.length === 0) return { deleted, done: true };
      const ids = found.map((body) => body._id);
      deleted += (await this.model.deleteMany({ expiresHour: hour, _id: { $in: ids } }).exec()).deletedCount;
    }
    return { deleted, done: false };
  }
}
