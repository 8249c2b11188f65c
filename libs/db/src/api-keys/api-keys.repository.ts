import { Injectable } from '@nestjs/common';
import { InjectModel } from '@nestjs/mongoose';
import { Model } from 'mongoose';
import { ApiKey } from './api-key.schema';

export type ApiKeyRecord = ApiKey;

@Injectable()
export class ApiKeysRepository {
  constructor(@InjectModel(ApiKey.name) private readonly model: Model<ApiKey>) {}

  async create(key: Pick<ApiKey, '_id' | 'appId' | 'hash' | 'prefix'>): Promise<void> {
    await this.model.create({ ...key, status: 'active', createdAt: new Date() });
  }

  findByHash(hash: string): Promise<ApiKeyRecord | null> {
    return this.model.findOne({ hash }).lean<ApiKeyRecord>().exec();
  }

  listForApp(appId: string): Promise<ApiKeyRecord[]> {
    return this.model.find({ appId }).sort({ createdAt: 1 }).lean<ApiKeyRecord[]>().exec();
  }

  /** Revokes every key of the application, those in a rotation grace period included. */
  async revokeAll(appId: string): Promise<void> {
    await this.model
      .updateMany({ appId, status: 'active' }, { $set: { status: 'revoked', revokedAt: new Date() } })
      .exec();
  }

  /** Retires the application's current keys at once, or lets them live until `graceUntil` (keys already in a grace period keep theirs). */
  async retireAll(appId: string, graceUntil?: Date): Promise<void> {
    const update = graceUntil ? { expiresAt: graceUntil } : { status: 'revoked', revokedAt: new Date() };
    await this.model.updateMany({ appId, status: 'active', expiresAt: { $exists: false } }, { $set: update }).exec();
  }
}
