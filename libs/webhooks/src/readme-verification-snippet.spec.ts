import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { signWebhookMessage } from './webhook-signature';

/** The receivers' verification snippet in README.md, extracted and evaluated the way the e2e suite does. */

type VerifyWebhook = (secretKey: string, headers: unknown, rawBody: string | Buffer) => boolean;

function readmeSnippet(): string {
  const readme = readFileSync(join(__dirname, '../../../README.md'), 'utf8');
  const blocks = [...readme.matchAll(/```js\n([\s\S]*?)```/g)].map((match) => match[1]);
  const snippet = blocks.find((block) => block.includes('function verifyWebhook'));
  if (!snippet) throw new Error('README.md has no ```js block defining function verifyWebhook');
  return snippet;
}

/** The snippet run as the CommonJS module a receiver pastes it into, with Node's `require`; `required` collects what it loads. */
function evaluateSnippet(nodeRequire: (name: string) => unknown, required: string[] = []): VerifyWebhook {
  // eslint-disable-next-line @typescript-eslint/no-implied-eval -- the code under test is README text, run as a receiver would run it
  const define = new Function('require', `${readmeSnippet()}; return verifyWebhook;`) as (
    load: (name: string) => unknown,
  ) => VerifyWebhook;
  return define((name) => {
    required.push(name);
    return nodeRequire(name);
  });
}

const verifyWebhook = evaluateSnippet(require);

const SECRET = 'ss-5Fh8Kq2Lm9Np3Rt7Vx1Zb4Dg6Jk0Ws2Yc8Ue5Ia7Oq3';
const BODY = JSON.stringify({
  type: 'task.succeeded',
  data: { task_id: 'task_abc', result_urls: ['https://gw.example.com/v1/files/img_a_0?exp=1&sig=é'] },
});

function signedHeaders(nowMs = Date.now(), body = BODY): Record<string, string> {
  const message = signWebhookMessage(SECRET, 'msg_task_abc_succeeded', body, nowMs);
  return {
    'webhook-id': message.id,
    'webhook-timestamp': String(message.timestamp),
    'webhook-signature': message.signature,
  };
}

describe('README verification snippet', () => {
  it('is plain JavaScript that needs nothing but node:crypto', () => {
    const required: string[] = [];
    evaluateSnippet(require, required);
    expect(required).toEqual(['node:crypto']);
  });

  it('accepts a signature made by signWebhook, from a string or the raw bytes', () => {
    expect(verifyWebhook(SECRET, signedHeaders(), BODY)).toBe(true);
    expect(verifyWebhook(SECRET, signedHeaders(), Buffer.from(BODY))).toBe(true);
  });

  it('rejects a tampered body, another secret and a tampered id', () => {
    expect(verifyWebhook(SECRET, signedHeaders(), BODY.replace('task_abc', 'task_abd'))).toBe(false);
    expect(verifyWebhook('ss-another-secret', signedHeaders(), BODY)).toBe(false);
    expect(verifyWebhook(SECRET, { ...signedHeaders(), 'webhook-id': 'msg_other' }, BODY)).toBe(false);
  });

  it('rejects a timestamp more than 5 minutes away', () => {
    expect(verifyWebhook(SECRET, signedHeaders(Date.now() - 240_000), BODY)).toBe(true);
    expect(verifyWebhook(SECRET, signedHeaders(Date.now() - 360_000), BODY)).toBe(false);
    expect(verifyWebhook(SECRET, signedHeaders(Date.now() + 360_000), BODY)).toBe(false);
  });

  it('accepts any one of several signatures and rejects missing headers', () => {
    const headers = signedHeaders();
    expect(
      verifyWebhook(SECRET, { ...headers, 'webhook-signature': `v1,AAAA ${headers['webhook-signature']}` }, BODY),
    ).toBe(true);
    expect(verifyWebhook(SECRET, { ...headers, 'webhook-signature': 'v1,AAAA v1,BBBB' }, BODY)).toBe(false);
    expect(
      verifyWebhook(
        SECRET,
        { 'webhook-id': headers['webhook-id'], 'webhook-signature': headers['webhook-signature'] },
        BODY,
      ),
    ).toBe(false);
  });

  it('reads a Fetch Headers object too', () => {
    expect(verifyWebhook(SECRET, new Headers(signedHeaders()), BODY)).toBe(true);
  });
});
