import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Standard Webhooks signatures (docs/contracts.md): `webhook-signature: v1,<base64 HMAC-SHA256(key, id.timestamp.body)>`.
 * The key is the application's Secret Key string as UTF-8 bytes; unlike Standard Webhooks' `whsec_` secrets it is
 * not base64-decoded first.
 */

/** How far a `webhook-timestamp` may be from the receiver's clock, either way, before it counts as a replay. */
export const DEFAULT_WEBHOOK_TOLERANCE_SECONDS = 300;

/** What one delivery attempt sends: re-signed at every attempt, so a retry a day later still passes the tolerance. */
export interface WebhookMessage {
  id: string;
  /** Unix seconds of this attempt. */
  timestamp: number;
  signature: string;
  body: string;
}

export interface VerifyWebhookOptions {
  toleranceSeconds?: number;
  /** The receiver's clock in milliseconds since the epoch (Date.now()). */
  now?: number;
}

const SIGNATURE_VERSION = 'v1';

export function signWebhook(secret: string, webhookId: string, timestampSeconds: number, body: string): string {
  return `${SIGNATURE_VERSION},${webhookHmac(secret, webhookId, String(timestampSeconds), body).toString('base64')}`;
}

/** Signs `body` for an attempt made at `nowMs`. */
export function signWebhookMessage(secret: string, webhookId: string, body: string, nowMs: number = Date.now()): WebhookMessage {
  const timestamp = Math.floor(nowMs / 1000);
  return { id: webhookId, timestamp, signature: signWebhook(secret, webhookId, timestamp, body), body };
}

/**
 * True when one of the header's space-separated `v1,<base64>` signatures matches `body` and the timestamp is within
 * the tolerance. Header names are matched case-insensitively; `body` must be the raw bytes received, not re-serialised JSON.
 */
export function verifyWebhookSignature(
  secret: string,
  headers: Record<string, string | undefined>,
  body: string | Buffer,
  options: VerifyWebhookOptions = {},
): boolean {
  const id = headerValue(headers, 'webhook-id');
  const timestamp = headerValue(headers, 'webhook-timestamp');
  const signatures = headerValue(headers, 'webhook-signature');
  if (!id || !timestamp || !signatures || !/^\d{1,15}$/.test(timestamp)) return false;

  const toleranceSeconds = options.toleranceSeconds ?? DEFAULT_WEBHOOK_TOLERANCE_SECONDS;
  const nowSeconds = (options.now ?? Date.now()) / 1000;
  if (Math.abs(nowSeconds - Number(timestamp)) > toleranceSeconds) return false;

  const expected = webhookHmac(secret, id, timestamp, body);
  return signatures
    .split(' ')
    .filter(Boolean)
    .some((entry) => {
      const comma = entry.indexOf(',');
      if (comma < 0 || entry.slice(0, comma) !== SIGNATURE_VERSION) return false;
      const candidate = Buffer.from(entry.slice(comma + 1), 'base64');
      // The HMAC length is public; timingSafeEqual only needs equal lengths.
      return candidate.length === expected.length && timingSafeEqual(candidate, expected);
    });
}

function webhookHmac(secret: string, webhookId: string, timestamp: string, body: string | Buffer): Buffer {
  return createHmac('sha256', Buffer.from(secret, 'utf8')).update(`${webhookId}.${timestamp}.`).update(body).digest();
}

function headerValue(headers: Record<string, string | undefined>, name: string): string | undefined {
  if (headers[name] !== undefined) return headers[name];
  const key = Object.keys(headers).find((candidate) => candidate.toLowerCase() === name);
  return key === undefined ? undefined : headers[key];
}
