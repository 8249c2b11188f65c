import { BASE62, newId, randomBase62 } from '@gateway/common';
import { ApiKeysRepository, UsersRepository } from '@gateway/db';
import { hashApiKey } from '@gateway/tenancy';
import { hash } from '@node-rs/argon2';
import { crc32 } from 'node:zlib';
import { createOperator } from '../helpers/console';
import { createApplication, RunningApi, startApi, testEnv } from '../helpers/gateway';

// Hostile callers of the console's sign-in and sign-up, and of /v1 with forged API keys. Every caller sends its own
// X-Forwarded-For (the api trusts 127.0.0.1 as a proxy), so one test can speak from many addresses.

const PASSWORD = 'correct horse battery';

async function call(api: RunningApi, path: string, address: string, body: unknown) {
  const started = performance.now();
  const response = await fetch(`${api.url}/console/api${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-forwarded-for': address },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  return {
    status: response.status,
    headers: response.headers,
    body: text ? JSON.parse(text) : null,
    ms: performance.now() - started,
  };
}

const signIn = (api: RunningApi, email: string, password: string, address: string) =>
  call(api, '/auth/login', address, { email, password });

function countStatuses(responses: { status: number }[]): Record<number, number> {
  const counts: Record<number, number> = {};
  for (const { status } of responses) counts[status] = (counts[status] ?? 0) + 1;
  return counts;
}

/** A key in the form issued before keyed checksums: its CRC32, which anyone can compute, as 6 base62 digits. */
function crcFormKey(body = randomBase62(43)): string {
  let value = crc32(body);
  let checksum = '';
  for (let i = 0; i < 6; i++) {
    checksum = BASE62[value % 62] + checksum;
    value = Math.floor(value / 62);
  }
  return `sk-${body}${checksum}`;
}

describe('console sign-in and API keys against hostile callers', () => {
  describe('sign-in throttles', () => {
    let api: RunningApi;

    beforeAll(async () => {
      api = await startApi(testEnv({ CONSOLE_SIGNUP: 'open', TRUSTED_PROXIES: '127.0.0.1' }));
    });

    afterAll(async () => {
      await api?.close();
    });

    it('verifies at most 10 of 30 wrong passwords sent at once for one account from one address', async () => {
      expect(
        (await call(api, '/auth/register', '198.51.100.1', { email: 'race@example.com', password: PASSWORD })).status,
      ).toBe(201);
      const attempts = await Promise.all(
        Array.from({ length: 30 }, () => signIn(api, 'race@example.com', 'wrong password!', '203.0.113.1')),
      );
      expect(countStatuses(attempts)).toEqual({ 401: 10, 429: 20 });
      const refused = attempts.find(({ status }) => status === 429)!;
      expect(refused.body.error).toMatchObject({ code: 'RateLimited' });
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    });

    it('verifies at most 50 of 100 wrong passwords sent at once from one address across accounts', async () => {
      const attempts = await Promise.all(
        Array.from({ length: 100 }, (_, i) => signIn(api, `spray${i}@example.com`, 'wrong password!', '203.0.113.2')),
      );
      expect(countStatuses(attempts)).toEqual({ 401: 50, 429: 50 });
      expect(attempts.find(({ status }) => status === 429)!.body.error.message).toContain('your address');
    });

    it("lets an account's owner sign in from their address while an attacker's address is throttled", async () => {
      const owner = '198.51.100.7';
      expect(
        (await call(api, '/auth/register', owner, { email: 'owner@example.com', password: PASSWORD })).status,
      ).toBe(201);
      expect((await signIn(api, 'owner@example.com', PASSWORD, owner)).status).toBe(200);

      const attacker = await Promise.all(
        Array.from({ length: 30 }, () => signIn(api, 'owner@example.com', 'wrong password!', '203.0.113.3')),
      );
      expect(countStatuses(attacker)).toEqual({ 401: 10, 429: 20 });
      expect((await signIn(api, 'owner@example.com', 'wrong password!', '203.0.113.3')).status).toBe(429);

      // No lock on the account: its owner, from an address it signed in from, is not kept out.
      const back = await signIn(api, 'owner@example.com', PASSWORD, owner);
      expect(back.status).toBe(200);
      expect(back.body.user.email).toBe('owner@example.com');
    });

    it('spaces out attempts on a much-failed account from new addresses: one of ten at once is verified', async () => {
      expect(
        (await call(api, '/auth/register', '198.51.100.8', { email: 'spaced@example.com', password: PASSWORD })).status,
      ).toBe(201);
      for (let i = 0; i < 10; i++)
        expect((await signIn(api, 'spaced@example.com', 'wrong password!', '203.0.113.4')).status).toBe(401);
      await new Promise((resolve) => setTimeout(resolve, 1_100)); // the delay after the 10th failure: 1 s

      const botnet = await Promise.all(
        Array.from({ length: 10 }, (_, i) => signIn(api, 'spaced@example.com', 'wrong password!', `192.0.2.${10 + i}`)),
      );
      expect(countStatuses(botnet)).toEqual({ 401: 1, 429: 9 });
      const wait = Number(botnet.find(({ status }) => status === 429)!.headers.get('retry-after'));
      expect(wait).toBeGreaterThanOrEqual(1);
      expect(wait).toBeLessThanOrEqual(60);

      // A delay, not a lock: the owner from a new address gets in once it has passed.
      const newAddress = '198.51.100.9';
      let answer = await signIn(api, 'spaced@example.com', PASSWORD, newAddress);
      for (let tries = 0; answer.status === 429 && tries < 3; tries++) {
        await new Promise((resolve) => setTimeout(resolve, Number(answer.headers.get('retry-after')) * 1_000 + 100));
        answer = await signIn(api, 'spaced@example.com', PASSWORD, newAddress);
      }
      expect(answer.status).toBe(200);
    }, 30_000);
  });

  describe('password strength', () => {
    let api: RunningApi;

    beforeAll(async () => {
      api = await startApi(testEnv({ CONSOLE_SIGNUP: 'open' }));
    });

    afterAll(async () => {
      await api?.close();
    });

    it.each([
      ['aaaaaaaaaa', 'repeats characters'],
      ['qwertyuiop', 'most common passwords'],
      ['1234567890', 'most common passwords'],
    ])('refuses %s at sign-up and says why', async (password, why) => {
      const refused = await call(api, '/auth/register', '198.51.100.1', { email: 'weak@example.com', password });
      expect(refused.status).toBe(400);
      expect(refused.body.error).toMatchObject({ code: 'WeakPassword', param: 'password' });
      expect(refused.body.error.message).toContain(why);
      expect(refused.body.error.message).toMatch(/strength \d of 4, 3 needed/);
    });

    it('keeps signing in an account whose password was set before the rule', async () => {
      await api.app.get(UsersRepository).create({
        _id: newId('user'),
        email: 'old@example.com',
        passwordHash: await hash('aaaaaaaaaa', { algorithm: 2 }),
      });
      const signedIn = await signIn(api, 'old@example.com', 'aaaaaaaaaa', '198.51.100.1');
      expect(signedIn.status).toBe(200);
    });
  });

  describe('invited sign-up', () => {
    let api: RunningApi;
    let operator: { cookie: string; csrf: string };

    beforeAll(async () => {
      api = await startApi(testEnv({ CONSOLE_SIGNUP: 'invite' }));
      operator = await createOperator(api, 'ops@example.com');
    });

    afterAll(async () => {
      await api?.close();
    });

    async function invitation(): Promise<string> {
      const response = await fetch(`${api.url}/console/api/admin/invitations`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', cookie: operator.cookie, 'x-csrf-token': operator.csrf },
        body: JSON.stringify({ expires_in_hours: 1 }),
      });
      return ((await response.json()) as { invitation: string }).invitation;
    }

    const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

    it('answers alike whether or not the email has an account, and changes nothing for a taken one', async () => {
      const taken: Awaited<ReturnType<typeof call>>[] = [];
      const fresh: Awaited<ReturnType<typeof call>>[] = [];
      for (let i = 0; i < 5; i++) {
        const email = `new${i}@example.com`;
        fresh.push(
          await call(api, '/auth/register', '198.51.100.1', {
            email,
            password: `${PASSWORD} ${i}`,
            invitation: await invitation(),
          }),
        );
        taken.push(
          await call(api, '/auth/register', '198.51.100.1', {
            email: 'ops@example.com',
            password: 'another password',
            invitation: await invitation(),
          }),
        );
      }
      for (const answer of [...taken, ...fresh]) {
        expect(answer.status).toBe(202);
        expect(answer.headers.get('set-cookie')).toBeNull();
      }
      expect(new Set([...taken, ...fresh].map(({ body }) => JSON.stringify(body))).size).toBe(1);
      // Both do the same work (an argon2 hash and an insert); the medians of five are within a factor of two.
      const [takenMs, freshMs] = [median(taken.map(({ ms }) => ms)), median(fresh.map(({ ms }) => ms))];
      expect(takenMs / freshMs).toBeGreaterThan(0.5);
      expect(takenMs / freshMs).toBeLessThan(2);

      // The new accounts sign in; the taken one keeps its own password.
      expect((await signIn(api, 'new0@example.com', `${PASSWORD} 0`, '198.51.100.2')).status).toBe(200);
      expect((await signIn(api, 'ops@example.com', 'another password', '198.51.100.2')).status).toBe(401);
      expect((await signIn(api, 'ops@example.com', PASSWORD, '198.51.100.2')).status).toBe(200);
    });

    it('uses up the invitation either way', async () => {
      const token = await invitation();
      expect(
        (
          await call(api, '/auth/register', '198.51.100.1', {
            email: 'ops@example.com',
            password: 'another password',
            invitation: token,
          })
        ).status,
      ).toBe(202);
      const again = await call(api, '/auth/register', '198.51.100.1', {
        email: 'late@example.com',
        password: PASSWORD,
        invitation: token,
      });
      expect(again.status).toBe(403);
      expect(again.body.error.code).toBe('InvalidInvitation');
    });
  });

  describe('forged API keys', () => {
    let api: RunningApi;
    let lookUps: jest.SpyInstance;

    beforeAll(async () => {
      api = await startApi(testEnv({ TRUSTED_PROXIES: '127.0.0.1' }));
      lookUps = jest.spyOn(api.app.get(ApiKeysRepository), 'findByHash');
    });

    afterAll(async () => {
      await api?.close();
    });

    const models = (key: string, address: string) =>
      fetch(`${api.url}/v1/models`, { headers: { authorization: `Bearer ${key}`, 'x-forwarded-for': address } });

    it('refuses keys without a keyed checksum without a database look-up, while real keys keep working', async () => {
      const { apiKey } = await createApplication(api, 'real');
      expect((await models(apiKey, '198.51.100.1')).status).toBe(200);
      lookUps.mockClear();
      // Random 49 characters: their checksum is neither keyed nor CRC32.
      const forged = await Promise.all(
        Array.from({ length: 500 }, () => models(`sk-${randomBase62(49)}`, '203.0.113.50').then((r) => r.status)),
      );
      expect(forged.every((status) => status === 401)).toBe(true);
      expect(lookUps).not.toHaveBeenCalled();
      expect((await models(apiKey, '203.0.113.50')).status).toBe(200);
    });

    it('looks up keys with a public CRC32 checksum only while their address has failures to spare', async () => {
      const { appId, apiKey } = await createApplication(api, 'legacy');
      // A key issued before keyed checksums, stored as it was then.
      const legacy = crcFormKey();
      await api.app
        .get(ApiKeysRepository)
        .create({ _id: newId('key'), appId, hash: hashApiKey(legacy), prefix: legacy.slice(0, 10) });
      lookUps.mockClear();

      const forged = await Promise.all(
        Array.from({ length: 500 }, () => models(crcFormKey(), '203.0.113.51').then((r) => r.status)),
      );
      expect(countStatuses(forged.map((status) => ({ status })))).toEqual({ 401: 20, 429: 480 });
      expect(lookUps).toHaveBeenCalledTimes(20);

      // The real keys work: the keyed one from the throttled address too, the old one from elsewhere.
      expect((await models(apiKey, '203.0.113.51')).status).toBe(200);
      expect((await models(legacy, '198.51.100.2')).status).toBe(200);
      expect((await models(legacy, '198.51.100.2')).status).toBe(200);
    });
  });
});
