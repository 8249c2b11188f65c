import { createHmac } from 'node:crypto';
import { signWebhook, signWebhookMessage } from './webhook-signature';

const SECRET = 'ss-5Fh8Kq2Lm9Np3Rt7Vx1Zb4Dg6Jk0Ws2Yc8Ue5Ia7Oq3';
const ID = 'msg_task_7dL2q9ZxW1pR4nV8sK3mTb_succeeded';
const TIMESTAMP = 1766225732;
const BODY = '{"type":"task.succeeded","data":{"task_id":"task_7dL2q9ZxW1pR4nV8sK3mTb"}}';
const NOW_MS = TIMESTAMP * 1000;

describe('signWebhook', () => {
  it('matches a vector computed with `openssl dgst -sha256 -hmac <secret key>`', () => {
    expect(signWebhook(SECRET, ID, TIMESTAMP, BODY)).toBe('v1,SrjzIzhghDLUzp/eMke+kU9sCQJslMv6JCJ8nu4/fwA=');
  });

  it('is HMAC-SHA256 keyed with the Secret Key string as UTF-8 over id.timestamp.body', () => {
    const secret = 'ss-ünïcødé';
    const expected = createHmac('sha256', Buffer.from(secret, 'utf8'))
      .update(`${ID}.${TIMESTAMP}.${BODY}`)
      .digest('base64');
    expect(signWebhook(secret, ID, TIMESTAMP, BODY)).toBe(`v1,${expected}`);
  });

  it('signs a message with the attempt time in whole seconds', () => {
    const message = signWebhookMessage(SECRET, ID, BODY, NOW_MS + 999);
    expect(message).toEqual({
      id: ID,
      timestamp: TIMESTAMP,
      signature: signWebhook(SECRET, ID, TIMESTAMP, BODY),
      body: BODY,
    });
  });
});
