/**
 * What one webhook delivery attempt came to. `skipped`: no request was made (e.g. the callback was disabled or
 * removed before the attempt).
 */
export const WEBHOOK_DELIVERY_OUTCOMES = ['delivered', 'retry', 'gone', 'rejected', 'skipped'] as const;
export type WebhookDeliveryOutcome = (typeof WEBHOOK_DELIVERY_OUTCOMES)[number];
