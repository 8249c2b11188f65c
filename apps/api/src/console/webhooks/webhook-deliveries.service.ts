import { GatewayError } from '@gateway/common';
import { FeedQuery, WebhookDeliveriesRepository, WebhookDelivery } from '@gateway/db';
import { WebhookEventType, WebhookJobs } from '@gateway/webhooks';
import { Injectable } from '@nestjs/common';
import { OwnedApplications } from '../applications/owned-applications';
import { applicationPage, fromCreation, listing } from '../feed-listing';

/** An owned application's webhook delivery attempts, and sending one event again. */
@Injectable()
export class WebhookDeliveries {
  constructor(
    private readonly owned: OwnedApplications,
    private readonly deliveries: WebhookDeliveriesRepository,
    private readonly webhookJobs: WebhookJobs,
  ) {}

  /** Delivery attempts of the application's webhooks, newest first. */
  async list(appId: string, ownerId: string, query: FeedQuery) {
    const since = fromCreation(await this.owned.find(appId, ownerId), query);
    return applicationPage(appId, await listing(() => this.deliveries.listForApp(appId, since)), presentDelivery);
  }

  /** Sends a delivered or failed event once more (one attempt), even to a callback a 410 disabled. */
  async redeliver(appId: string, ownerId: string, deliveryId: string) {
    await this.owned.find(appId, ownerId);
    const delivery = await this.deliveries.findForApp(deliveryId, appId);
    if (!delivery)
      throw new GatewayError('NotFound', `no webhook delivery ${deliveryId} for this application`, {
        param: 'delivery_id',
      });
    if (delivery.event.startsWith('budget.'))
      throw new GatewayError('InvalidParameter', 'a budget event is sent once per period and is not sent again', {
        param: 'delivery_id',
      });
    await this.webhookJobs.redeliver(appId, delivery.taskId, delivery.event as WebhookEventType);
    return { app_id: appId, task_id: delivery.taskId, event: delivery.event, status: 'queued' };
  }
}

function presentDelivery(delivery: WebhookDelivery) {
  return {
    id: delivery._id,
    task_id: delivery.taskId,
    event: delivery.event,
    webhook_id: delivery.webhookId,
    url: delivery.url,
    attempt: delivery.attempt,
    redelivery: delivery.redelivery,
    outcome: delivery.outcome,
    http_status: delivery.httpStatus ?? null,
    error: delivery.error ?? null,
    duration_ms: delivery.durationMs,
    response: delivery.responseSnippet ?? null,
    attempts: delivery.attempts ?? null,
    next_attempt_at: delivery.nextAttemptAt ? new Date(delivery.nextAttemptAt).toISOString() : null,
    created_at: new Date(delivery.createdAt).toISOString(),
  };
}
