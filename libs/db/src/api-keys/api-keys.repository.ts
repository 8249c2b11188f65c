import { Injectable } from '@nestjs/common';
import { InjectModel } from '@nestjs/mongoose';
import { Model } from 'mongoose';
import { ApiKey, ApiKeyLastUsed } from './api-key.schema';

export type ApiKeyRecord = ApiKey;
export type NewApiKey = Pick<ApiKey, '_id' | 'appId' | 'hash' | 'prefix' | 'name' | 'expiresAt'>;

/** Keys that still authenticate at `now`: not revoked, and not past their expiry. */
function liveAt(appId: string, now: Date) {
  return { appId, status: 'active', $or: [{ expiresAt: { $exists: false } }, { expiresAt: { $gt: now } }] };
}

@Injectable()
export class ApiKeysRepository {
  constructor(
    @InjectModel(ApiKey.name) private readonly model: Model<ApiKey>,
    @InjectModel(ApiKeyLastUsed.name) private readonly lastUsed: Model<ApiKeyLastUsed>,
  ) {}

  async create(key: NewApiKey): Promise<void> {
    const { expiresAt, ...rest } = key;
    await this.model.create({ ...rest, ...(expiresAt ? { expiresAt } : {}), status: 'active', createdAt: new Date() });
  }

  findByHash(hash: string): Promise<ApiKeyRecord | null> {
    return this.model.findOne({ hash }).lean<ApiKeyRecord>().exec();
  }

  findForApp(appId: string, keyId: string): Promise<ApiKeyRecord | null> {
    return this.model.findOne({ _id: keyId, appId }).lean<ApiKeyRecord>().exec();
  }

  /** The application's keys, oldest first, each with its last-used time (one look-up by id per key, 20 or so). */
  async listForApp(appId: string): Promise<ApiKeyRecord[]> {
    const keys = await this.model.find({ appId }).sort({ createdAt: 1 }).lean<ApiKeyRecord[]>().exec();
    const times = await Promise.all(
      keys.map((key) => this.lastUsed.findOne({ _id: key._id }).lean<ApiKeyLastUsed>().exec()),
    );
    return keys.map((key, index) => ({ ...key, lastUsedAt: times[index]?.lastUsedAt }));
  }

  countLive(appId: string, now = new Date()): Promise<number> {
    return this.model.countDocuments(liveAt(appId, now)).exec();
  }

  /** Revokes one key of the application; false when it has no such key still active. */
  async revoke(appId: string, keyId: string): Promise<boolean> {
    const result = await this.model
      .updateOne({ _id: keyId, appId, status: 'active' }, { $set: { status: 'revoked', revokedAt: new Date() } })
      .exec();
    return result.modifiedCount === 1;
  }

  /** Revokes every key of the application, those in a rotation grace period included. */
  async revokeAll(appId: string): Promise<void> {
    await this.model
      .updateMany({ appId, status: 'active' }, { $set: { status: 'revoked', revokedAt: new Date() } })
      .exec();
  }

  /**
   * Retires keys a rotation replaces (`keyId`, or every key of the application) at once, or lets them live until
   * `graceUntil` at most: a key expiring sooner keeps its expiry, and a key already replaced by an earlier rotation
   * keeps its grace period.
   */
  async retire(appId: string, graceUntil?: Date, keyId?: string): Promise<void> {
    const now = new Date();
    const filter = { ...liveAt(appId, now), rotatedAt: { $exists: false }, ...(keyId ? { _id: keyId } : {}) };
    if (!graceUntil) {
      await this.model.updateMany(filter, { $set: { status: 'revoked', revokedAt: now, rotatedAt: now } }).exec();
      return;
    }
    await this.model.updateMany(filter, { $set: { rotatedAt: now }, $min: { expiresAt: graceUntil } }).exec();
  }

  /** Folds last-used times noted in memory into api_key_last_used; a time only moves forward. */
  async recordLastUsed(times: ReadonlyMap<string, number>): Promise<void> {
    if (times.size === 0) return;
    await this.lastUsed.bulkWrite(
      [...times].map(([keyId, at]) => ({
        updateOne: { filter: { _id: keyId }, update: { $max: { lastUsedAt: new Date(at) } }, upsert: true },
      })),
      { ordered: false },
    );
  }
}
