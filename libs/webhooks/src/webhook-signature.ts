import { createHmac } from 'node:crypto';

/**
 * Standard Webhooks signatures (docs/contracts.md): `webhook-signature: v1,<base64 HMAC-SHA256(key, id.timestamp.body)>`.
 * The key is the application's Secret Key string as UTF-8 bytes; unlike Standard Webhooks' `whsec_` secrets it is
 * not base64-decoded first.
 */

/** What one delivery attempt sends: re-signed at every attempt, so a retry a day later still passes a receiver's timestamp tolerance. */
export interface WebhookMessage {
  id: string;
  /** Unix seconds of this attempt. */
  timestamp: number;
  signature: string;
  body: string;
}

const SIGNATURE_VERSION = 'v1';

export function signWebhook(secret: string, webhookId: string, timestampSeconds: number, body: string): string {
  return `${SIGNATURE_VERSION},${webhookHmac(secret, webhookId, String(timestampSeconds), body).toString('base64')}`;
}

/** Signs `body` for an attempt made at `nowMs`. */
export function signWebhookMessage(
  secret: string,
  webhookId: string,
  body: string,
  nowMs: number = Date.now(),
): WebhookMessage {
  const timestamp = Math.floor(nowMs / 1000);
  return { id: webhookId, timestamp, signature: signWebhook(secret, webhookId, timestamp, body), body };
}

function webhookHmac(secret: string, webhookId: string, timestamp: string, body: string): Buffer {
  return createHmac('sha256', Buffer.from(secret, 'utf8')).update(`${webhookId}.${timestamp}.`).update(body).digest();
}
