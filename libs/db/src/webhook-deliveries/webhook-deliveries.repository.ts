import { newId, utcDay } from '@gateway/common';
import { Injectable } from '@nestjs/common';
import { InjectModel } from '@nestjs/mongoose';
import { Model } from 'mongoose';
import { FeedPages, FeedQuery, FeedSlice } from '../feeds/feed-pages';
import { reviveDates } from '../internal/revive-dates';
import { WebhookDelivery } from './webhook-delivery.schema';

/** What a delivery attempt reports; the repository adds the id, the day and the feed place. */
export type WebhookDeliveryAttempt = Omit<WebhookDelivery, '_id' | 'createdAt' | 'day' | 'page'> & { createdAt?: Date };

@Injectable()
export class WebhookDeliveriesRepository {
  constructor(
    @InjectModel(WebhookDelivery.name) private readonly model: Model<WebhookDelivery>,
    private readonly feeds: FeedPages,
  ) {}

  /** Inserts one attempt; attempts are never updated afterwards. */
  async record(attempt: WebhookDeliveryAttempt): Promise<WebhookDelivery> {
    const createdAt = attempt.createdAt ?? new Date();
    const day = utcDay(createdAt);
    const [place] = await this.feeds.place('webhooks', attempt.appId, day, 1);
    const delivery: WebhookDelivery = { ...attempt, _id: newId('whd'), createdAt, day, page: place.page };
    // create() validates (outcome enum, required fields) and leaves unset optional fields out; one insert per attempt.
    const created = (await this.model.create(delivery)).toObject<WebhookDelivery>();
    await this.feeds.file('webhooks', created, place);
    return created;
  }

  /** An application's attempts over a range of days, newest first. */
  listForApp(appId: string, query: FeedQuery): Promise<FeedSlice<WebhookDelivery>> {
    return this.feeds.list<WebhookDelivery>('webhooks', appId, query, (row) => reviveDates(row, 'createdAt'));
  }

  /** An attempt of this application; another application's delivery id reads as absent. */
  async findForApp(id: string, appId: string): Promise<WebhookDelivery | null> {
    const delivery = await this.model.findById(id).lean<WebhookDelivery>().exec();
    return delivery?.appId === appId ? delivery : null;
  }

  /** Deletes the attempts filed under one feed page, and their rows; returns how many attempts. */
  async deletePage(page: string): Promise<number> {
    const { deletedCount } = await this.model.deleteMany({ page }).exec();
    await this.feeds.deleteRows(page);
    return deletedCount;
  }
}
