import { createHmac } from 'node:crypto';
import { signWebhook, signWebhookMessage, verifyWebhookSignature } from './webhook-signature';

const SECRET = 'ss-5Fh8Kq2Lm9Np3Rt7Vx1Zb4Dg6Jk0Ws2Yc8Ue5Ia7Oq3';
const ID = 'msg_task_7dL2q9ZxW1pR4nV8sK3mTb_succeeded';
const TIMESTAMP = 1766225732;
const BODY = '{"type":"task.succeeded","data":{"task_id":"task_7dL2q9ZxW1pR4nV8sK3mTb"}}';
const NOW_MS = TIMESTAMP * 1000;

function headersFor(signature: string, id = ID, timestamp = TIMESTAMP): Record<string, string> {
  return { 'webhook-id': id, 'webhook-timestamp': String(timestamp), 'webhook-signature': signature };
}

describe('signWebhook', () => {
  it('matches a vector computed with `openssl dgst -sha256 -hmac <secret key>`', () => {
    expect(signWebhook(SECRET, ID, TIMESTAMP, BODY)).toBe('v1,SrjzIzhghDLUzp/eMke+kU9sCQJslMv6JCJ8nu4/fwA=');
  });

  it('is HMAC-SHA256 keyed with the Secret Key string as UTF-8 over id.timestamp.body', () => {
    const secret = 'ss-ünïcødé';
    const expected = createHmac('sha256', Buffer.from(secret, 'utf8')).update(`${ID}.${TIMESTAMP}.${BODY}`).digest('base64');
    expect(signWebhook(secret, ID, TIMESTAMP, BODY)).toBe(`v1,${expected}`);
  });

  it('signs a message with the attempt time in whole seconds', () => {
    const message = signWebhookMessage(SECRET, ID, BODY, NOW_MS + 999);
    expect(message).toEqual({ id: ID, timestamp: TIMESTAMP, signature: signWebhook(SECRET, ID, TIMESTAMP, BODY), body: BODY });
  });
});

describe('verifyWebhookSignature', () => {
  const signature = signWebhook(SECRET, ID, TIMESTAMP, BODY);
  const verify = (headers: Record<string, string | undefined>, body: string | Buffer = BODY, options = {}) =>
    verifyWebhookSignature(SECRET, headers, body, { now: NOW_MS, ...options });

  it('accepts its own signature, with the body as a string or as raw bytes', () => {
    expect(verify(headersFor(signature))).toBe(true);
    expect(verify(headersFor(signature), Buffer.from(BODY))).toBe(true);
  });

  it('rejects a tampered body, id or timestamp, and another secret', () => {
    expect(verify(headersFor(signature), BODY.replace('succeeded', 'failed'))).toBe(false);
    expect(verify(headersFor(signature), `${BODY} `)).toBe(false);
    expect(verify(headersFor(signature, `${ID}x`))).toBe(false);
    expect(verify(headersFor(signature, ID, TIMESTAMP + 1))).toBe(false);
    expect(verifyWebhookSignature(`${SECRET}x`, headersFor(signature), BODY, { now: NOW_MS })).toBe(false);
  });

  it('accepts timestamps up to 5 minutes either side of the clock and rejects older or newer ones', () => {
    expect(verify(headersFor(signature), BODY, { now: NOW_MS + 300_000 })).toBe(true);
    expect(verify(headersFor(signature), BODY, { now: NOW_MS - 300_000 })).toBe(true);
    expect(verify(headersFor(signature), BODY, { now: NOW_MS + 301_000 })).toBe(false);
    expect(verify(headersFor(signature), BODY, { now: NOW_MS - 301_000 })).toBe(false);
  });

  it('applies a custom tolerance and defaults to the real clock', () => {
    expect(verify(headersFor(signature), BODY, { now: NOW_MS + 60_000, toleranceSeconds: 30 })).toBe(false);
    expect(verifyWebhookSignature(SECRET, headersFor(signature), BODY)).toBe(false);
    const current = signWebhookMessage(SECRET, ID, BODY);
    expect(verifyWebhookSignature(SECRET, headersFor(current.signature, ID, current.timestamp), BODY)).toBe(true);
  });

  it('accepts a header listing several signatures when any one matches', () => {
    const other = signWebhook('ss-previous-secret', ID, TIMESTAMP, BODY);
    expect(verify(headersFor(`${other} ${signature}`))).toBe(true);
    expect(verify(headersFor(`${signature} ${other}`))).toBe(true);
    expect(verify(headersFor(`v1a,${signature.slice(3)} ${other}`))).toBe(false);
    expect(verify(headersFor(other))).toBe(false);
  });

  it('ignores signatures of other versions and malformed entries', () => {
    expect(verify(headersFor(`v2,${signature.slice(3)}`))).toBe(false);
    expect(verify(headersFor(signature.slice(3)))).toBe(false);
    expect(verify(headersFor('v1,'))).toBe(false);
    expect(verify(headersFor(`v1,${signature.slice(3, 20)}`))).toBe(false);
  });

  it('rejects missing headers and a timestamp that is not Unix seconds', () => {
    expect(verify({ 'webhook-timestamp': String(TIMESTAMP), 'webhook-signature': signature })).toBe(false);
    expect(verify({ 'webhook-id': ID, 'webhook-signature': signature })).toBe(false);
    expect(verify({ 'webhook-id': ID, 'webhook-timestamp': String(TIMESTAMP) })).toBe(false);
    expect(verify({ ...headersFor(signature), 'webhook-timestamp': `${TIMESTAMP}.0` })).toBe(false);
    expect(verify({ ...headersFor(signature), 'webhook-timestamp': new Date(NOW_MS).toISOString() })).toBe(false);
  });

  it('finds headers whatever their case', () => {
    expect(verify({ 'Webhook-Id': ID, 'WEBHOOK-TIMESTAMP': String(TIMESTAMP), 'Webhook-Signature': signature })).toBe(true);
  });
});
