import { connect } from 'node:net';
import { consoleClient } from '../helpers/console';
import { createApplication, RunningApi, startApi, testEnv } from '../helpers/gateway';

/** What a raw HTTP exchange answered: status, headers as text, body, and whether the api closed the connection. */
interface RawAnswer {
  status: number;
  head: string;
  body: string;
  closed: boolean;
}

describe('Hostile input is refused at the HTTP layer, in the error envelope', () => {
  let api: RunningApi;
  let port: number;

  /** A caller with a valid key: its body is read, so what is wrong with the body is what answers. */
  let bearer: Record<string, string>;

  beforeAll(async () => {
    api = await startApi(testEnv({ BODY_TIMEOUT_MS: 1000 }));
    port = Number(new URL(api.url).port);
    bearer = { authorization: `Bearer ${(await createApplication(api, 'body-sender')).apiKey}` };
  });

  afterAll(async () => {
    await api?.close();
  });

  /** Writes `request` as bytes on a fresh socket; answers once the api closes it or `waitMs` has passed. */
  function rawHttp(request: Buffer | string, waitMs = 5000): Promise<RawAnswer> {
    return new Promise((resolve, reject) => {
      const socket = connect(port, '127.0.0.1');
      const received: Buffer[] = [];
      let closed = false;
      const finish = () => {
        const text = Buffer.concat(received).toString('utf8');
        const [head, ...rest] = text.split('\r\n\r\n');
        resolve({ status: Number(head.split(' ')[1]), head, body: rest.join('\r\n\r\n'), closed });
        socket.destroy();
      };
      const timer = setTimeout(finish, waitMs);
      socket.on('data', (chunk) => received.push(chunk));
      socket.on('error', reject);
      socket.on('close', () => {
        closed = true;
        clearTimeout(timer);
        finish();
      });
      socket.write(request);
    });
  }

  function post(path: string, body: string, headers: Record<string, string> = {}) {
    return fetch(`${api.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body,
    }).then(async (response) => ({ status: response.status, text: await response.text() }));
  }

  function envelopeOf(text: string) {
    return (JSON.parse(text) as { error: { code: string; param: string | null; message: string } }).error;
  }

  it('refuses a body nested deeper than 64 levels with 400 before parsing it, however deep', async () => {
    for (const depth of [65, 3000, 2_000_000]) {
      const deep = '['.repeat(depth) + ']'.repeat(depth);
      const answer = await post('/v1/embeddings', deep, bearer);
      expect(answer.status).toBe(400);
      expect(envelopeOf(answer.text)).toMatchObject({ code: 'InvalidParameter' });
      expect(envelopeOf(answer.text).message).toContain('deeper than 64');
    }
  });

  it('takes a body nested 64 deep and brackets inside strings as text', async () => {
    const nested = JSON.parse('{"a":'.repeat(63) + '1' + '}'.repeat(63)) as unknown;
    const answer = await post(
      '/console/api/auth/login',
      JSON.stringify({ email: '[[[[{{{{'.repeat(100), password: '\\"[[[', nested }),
    );
    // Past the parser: the sign-in's own validation answers, naming the unknown field.
    expect(answer.status).toBe(400);
    expect(envelopeOf(answer.text).param).toBe('nested');
  });

  it('refuses every body that is not JSON with 400, a sign-in form included', async () => {
    const form = await fetch(`${api.url}/console/api/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'email=ada%40example.com&password=correct+horse+battery',
    });
    expect(form.status).toBe(400);
    expect((await form.json()).error).toMatchObject({ code: 'InvalidParameter', param: 'Content-Type' });
    // A /v1 caller is authenticated first (before any body): with a valid key, the content type is what fails.
    for (const type of ['text/plain', 'multipart/form-data; boundary=x']) {
      const answer = await post('/v1/embeddings', '--x--', { ...bearer, 'content-type': type });
      expect(answer.status).toBe(400);
      expect(envelopeOf(answer.text).param).toBe('Content-Type');
    }
  });

  it('cuts an unknown key to 100 characters when naming it, instead of echoing megabytes', async () => {
    const key = 'k'.repeat(1_000_000);
    const answer = await post('/v1/embeddings', `{"model":"text-embedding-v4","input":"x","${key}":1}`, bearer);
    expect(answer.status).toBe(400);
    expect(envelopeOf(answer.text).param).toBe(`${'k'.repeat(100)}…`);
    expect(answer.text.length).toBeLessThan(1000);
  });

  it('answers 414 in the envelope for an over-long path segment, without repeating the path', async () => {
    const id = `task_${'x'.repeat(5000)}`;
    const response = await fetch(`${api.url}/v1/tasks/${id}`);
    expect(response.status).toBe(414);
    const text = await response.text();
    expect(envelopeOf(text).code).toBe('UriTooLong');
    expect(text).not.toContain('xxxxxxxxxx');
  });

  it('answers 431 in the envelope for headers over 16 KB, and closes the connection', async () => {
    const answer = await rawHttp(`GET /health/live HTTP/1.1\r\nHost: x\r\nX-Big: ${'b'.repeat(20_000)}\r\n\r\n`);
    expect(answer.status).toBe(431);
    expect(envelopeOf(answer.body).code).toBe('HeadersTooLarge');
    expect(answer.closed).toBe(true);
  });

  it('answers 408 and closes the connection when the body does not follow its headers in BODY_TIMEOUT_MS', async () => {
    const answer = await rawHttp(
      'POST /console/api/auth/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 40\r\n\r\n{"em',
    );
    expect(answer.status).toBe(408);
    expect(envelopeOf(answer.body).code).toBe('RequestTimeout');
    expect(answer.closed).toBe(true);
  });

  it('refuses U+0000 and lone surrogates in any text field or key with 400, naming the field', async () => {
    const bodies: [string, string][] = [
      ['{"email":"a\\u0000@example.com","password":"correct horse battery"}', 'email'],
      ['{"email":"\\ud800@example.com","password":"correct horse battery"}', 'email'],
      ['{"email":"a@example.com","password":"\\udc00 low alone"}', 'password'],
    ];
    for (const [body, param] of bodies) {
      const answer = await post('/console/api/auth/login', body);
      expect(answer.status).toBe(400);
      expect(envelopeOf(answer.text)).toMatchObject({ code: 'InvalidParameter', param });
    }
    // A surrogate pair is one character: the sign-in goes on to check the password.
    const pair = await post(
      '/console/api/auth/login',
      '{"email":"a@example.com","password":"correct horse \\ud83d\\ude00 battery"}',
    );
    expect(envelopeOf(pair.text)).toMatchObject({ code: 'InvalidCredentials' });
  });

  it('refuses U+0000 and lone surrogates in ids and query parameters with 400', async () => {
    const { call, register } = consoleClient(api.url);
    const user = await register('ids@example.com');
    for (const id of ['app_%00', 'app_%ED%A0%80']) {
      const answer = await call('GET', `/applications/${id}`, user);
      expect([id, answer.status, answer.body.error.code]).toEqual([id, 400, 'InvalidParameter']);
    }
    const query = await call('GET', '/applications?cursor=%00', user);
    expect([query.status, query.body.error.param]).toEqual([400, 'cursor']);
  });

  it('refuses a non-ASCII X-CSRF-Token with 400', async () => {
    const { register } = consoleClient(api.url);
    const user = await register('hostile@example.com');
    const body = '{"name":"x"}';
    const answer = await rawHttp(
      Buffer.concat([
        Buffer.from(
          `POST /console/api/applications HTTP/1.1\r\nHost: x\r\nCookie: ${user.cookie}\r\nContent-Type: application/json\r\n` +
            `Content-Length: ${body.length}\r\nConnection: close\r\nX-CSRF-Token: `,
        ),
        Buffer.from(`${user.csrf.slice(0, -2)}é`, 'utf8'),
        Buffer.from(`\r\n\r\n${body}`),
      ]),
    );
    expect(answer.status).toBe(400);
    expect(envelopeOf(answer.body)).toMatchObject({ code: 'InvalidParameter', param: 'x-csrf-token' });
  });

  it('holds sign-in and sign-up to 16 KB and the rest of the console to 64 KB, with 413 in the envelope', async () => {
    const { register } = consoleClient(api.url);
    const user = await register('limits@example.com');
    const over = (bytes: number) => JSON.stringify({ email: 'a@example.com', password: 'p'.repeat(bytes) });
    for (const path of ['/console/api/auth/login', '/console/api/auth/register']) {
      const answer = await post(path, over(17 * 1024));
      expect([path, answer.status, envelopeOf(answer.text).code]).toEqual([path, 413, 'PayloadTooLarge']);
    }
    const application = await fetch(`${api.url}/console/api/applications`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', cookie: user.cookie, 'x-csrf-token': user.csrf },
      body: JSON.stringify({ name: 'big', description: 'd'.repeat(65 * 1024) }),
    });
    expect(application.status).toBe(413);
    expect((await application.json()).error.code).toBe('PayloadTooLarge');
  });

  describe('a /v1 caller that is not allowed is refused before its body is read', () => {
    const BIG = 45 * 1024 * 1024;
    let apiKey: string;

    beforeAll(async () => {
      ({ apiKey } = await createApplication(api, 'whitelisted', { ipWhitelist: ['203.0.113.7'] }));
    });

    /** Headers announcing a 45 MB body that never comes: only an answer before the body beats the 408. */
    function announce(path: string, headers: string): Promise<RawAnswer> {
      return rawHttp(
        `POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n${headers}Content-Length: ${BIG}\r\n\r\n`,
      );
    }

    const callers: [string, () => string, number, string][] = [
      ['no Authorization', () => '', 401, 'MissingAuthorization'],
      ['a key that does not exist', () => `Authorization: Bearer sk-${'x'.repeat(48)}\r\n`, 401, 'InvalidApiKey'],
      [
        'a signature from an unknown App ID',
        () =>
          `X-App-Id: app_${'A'.repeat(22)}\r\nX-Timestamp: ${Math.floor(Date.now() / 1000)}\r\n` +
          'X-Nonce: nonce-0001\r\nX-Signature: c2lnbmF0dXJl\r\n',
        401,
        'InvalidSignature',
      ],
      ['a real key from outside its whitelist', () => `Authorization: Bearer ${apiKey}\r\n`, 403, 'IpNotAllowed'],
    ];

    it.each(callers)('%s: answered at once, and the connection closed', async (_caller, headers, status, code) => {
      for (const path of ['/v1/images/edits', '/v1/embeddings', '/v1/chat/completions']) {
        const answer = await announce(path, headers());
        expect([path, answer.status, envelopeOf(answer.body).code, answer.closed]).toEqual([path, status, code, true]);
      }
    });
  });
});
