import { WEBHOOK_DELIVERY_OUTCOMES, WebhookDeliveryOutcome } from '@gateway/contracts';
import { Prop, Schema, SchemaFactory } from '@nestjs/mongoose';

export { WEBHOOK_DELIVERY_OUTCOMES };
export type { WebhookDeliveryOutcome };

/**
 * One webhook delivery attempt, written once and never updated. The console lists them per application, newest
 * first, through the application's `webhooks` feed; the maintenance sweep deletes whole feed pages once old.
 */
@Schema({ collection: 'webhook_deliveries', versionKey: false })
export class WebhookDelivery {
  /** `whd_…` */
  @Prop({ type: String, required: true }) _id: string;
  @Prop({ required: true }) appId: string;
  @Prop({ required: true }) taskId: string;
  @Prop({ required: true }) event: string;
  /** The `webhook-id` header: the same for every attempt of one event, so receivers can de-duplicate. */
  @Prop({ required: true }) webhookId: string;
  @Prop({ required: true }) url: string;
  /** 1-based, counted within the delivery job (a redelivery starts again at 1). */
  @Prop({ required: true }) attempt: number;
  @Prop({ type: Boolean, default: false }) redelivery: boolean;
  @Prop({ type: String, enum: WEBHOOK_DELIVERY_OUTCOMES, required: true }) outcome: WebhookDeliveryOutcome;
  @Prop({ type: Number }) httpStatus?: number;
  /** Client-safe text: names the host, never a resolved address, the URL's query or the secret. */
  @Prop({ type: String }) error?: string;
  @Prop({ required: true }) durationMs: number;
  @Prop({ type: String }) responseSnippet?: string;
  /** When the job tries this event again, for an attempt that will be retried; absent after the last one. */
  @Prop({ type: Date }) nextAttemptAt?: Date;
  /** The attempts the delivery job has in all (the retry schedule's length, 1 for a redelivery). */
  @Prop({ type: Number }) attempts?: number;
  @Prop({ type: Date, required: true }) createdAt: Date;
  /** UTC day (YYYY-MM-DD) for roll-ups and expiry without date operators (docs/contracts.md, collections). */
  @Prop({ required: true }) day: string;
  /** Its page in the application's `webhooks` feed (FeedPages): what the 30-day prune deletes by. */
  @Prop({ required: true }) page: string;
}

export const WebhookDeliverySchema = SchemaFactory.createForClass(WebhookDelivery);
WebhookDeliverySchema.index({ page: 1 });
