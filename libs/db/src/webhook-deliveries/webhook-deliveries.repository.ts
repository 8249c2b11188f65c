import { newId, utcDay } from '@gateway/common';
import { Injectable } from '@nestjs/common';
import { InjectModel } from '@nestjs/mongoose';
import { Model } from 'mongoose';
import { WebhookDelivery } from './webhook-delivery.schema';

/** What a delivery attempt reports; the repository adds the id and the day. */
export type WebhookDeliveryAttempt = Omit<WebhookDelivery, '_id' | 'createdAt' | 'day'> & { createdAt?: Date };

export interface ListWebhookDeliveriesOptions {
  limit?: number;
  /** Only attempts made before this instant: the cursor for the next page. */
  before?: Date;
}

const DEFAULT_PAGE = 50;
const MAX_PAGE = 200;

@Injectable()
export class WebhookDeliveriesRepository {
  constructor(@InjectModel(WebhookDelivery.name) private readonly model: Model<WebhookDelivery>) {}

  /** Inserts one attempt; attempts are never updated afterwards. */
  async record(attempt: WebhookDeliveryAttempt): Promise<WebhookDelivery> {
    const createdAt = attempt.createdAt ?? new Date();
    const delivery: WebhookDelivery = { ...attempt, _id: newId('whd'), createdAt, day: utcDay(createdAt) };
    // create() validates (outcome enum, required fields) and leaves unset optional fields out; one insert per attempt.
    await this.model.create(delivery);
    return delivery;
  }

  /** An application's attempts, newest first. */
  listForApp(appId: string, { limit = DEFAULT_PAGE, before }: ListWebhookDeliveriesOptions = {}): Promise<WebhookDelivery[]> {
    const pageSize = Math.min(Math.max(Math.floor(limit) || DEFAULT_PAGE, 1), MAX_PAGE);
    return this.model
      .find({ appId, ...(before ? { createdAt: { $lt: before } } : {}) })
      .sort({ createdAt: -1, _id: -1 })
      .limit(pageSize)
      .lean<WebhookDelivery[]>()
      .exec();
  }

  /** An attempt of this application; another application's delivery id reads as absent. */
  findForApp(id: string, appId: string): Promise<WebhookDelivery | null> {
    return this.model.findOne({ _id: id, appId }).lean<WebhookDelivery>().exec();
  }

  /** For the maintenance sweep (no TTL indexes, DESIGN §5). Returns how many were deleted. */
  async deleteCreatedBefore(cutoff: Date): Promise<number> {
    const { deletedCount } = await this.model.deleteMany({ createdAt: { $lt: cutoff } }).exec();
    return deletedCount;
  }
}
