import { randomUUID } from 'node:crypto';
import pino from 'pino';
import { testConfig } from '../../../test/helpers/test-env';
import { GatewayRedis } from './gateway-redis.service';
import { RoutePacer } from './route-pacer.service';

/** RoutePacer against the suite's Redis: two pacers stand for two workers, each with its own connection. */
describe('RoutePacer', () => {
  // A REDIS_PREFIX of its own, as every test configuration has.
  const config = testConfig();
  let connections: GatewayRedis[];
  let pacers: RoutePacer[];
  let route: string;

  beforeAll(() => {
    const logger = pino({ level: 'silent' });
    connections = [new GatewayRedis(config, logger), new GatewayRedis(config, logger)];
    pacers = connections.map((redis) => new RoutePacer(redis));
  });

  afterAll(() => Promise.all(connections.map((redis) => redis.onApplicationShutdown())));

  beforeEach(() => {
    route = `upstream:${randomUUID()}`;
  });

  /** Redis's clock, in µs, as the pacer reads it. */
  async function serverTimeUs(): Promise<number> {
    const [seconds, micros] = await connections[0].client.time();
    return Number(seconds) * 1_000_000 + Number(micros);
  }

  it("starts 10 calls of two workers at 5 per second at least 200 ms apart on Redis's clock, none before its turn", async () => {
    const startedAt: number[] = [];
    const turns = await Promise.all(
      Array.from({ length: 10 }, async (_, i) => {
        const turn = await pacers[i % 2].pace(route, 5, Date.now() + 10_000);
        startedAt.push(await serverTimeUs());
        return turn!;
      }),
    );
    const starts = turns.map((turn) => turn.startsAtUs).sort((a, b) => a - b);
    for (let i = 1; i < starts.length; i++) expect(starts[i] - starts[i - 1]).toBeGreaterThanOrEqual(200_000);
    startedAt.sort((a, b) => a - b);
    starts.forEach((start, i) => expect(startedAt[i]).toBeGreaterThanOrEqual(start));
  });

  it('refuses a turn further off than the caller will wait, and reserves nothing for it', async () => {
    expect(await pacers[0].reserve(route, 1, 0)).toMatchObject({ waitMs: 0 });
    expect(await pacers[1].reserve(route, 1, 500)).toBeNull();
    expect(await pacers[1].pace(route, 1, Date.now() + 500)).toBeNull();
    const next = await pacers[0].reserve(route, 1, 5_000);
    // The turn 1 s after the first, not one behind the refused calls.
    expect(next!.waitMs).toBeGreaterThan(900);
    expect(next!.waitMs).toBeLessThanOrEqual(1_000);
  });

  it('paces below one call per second: 0.5 spaces starts 2 s apart', async () => {
    const first = await pacers[0].reserve(route, 0.5, 10_000);
    const second = await pacers[1].reserve(route, 0.5, 10_000);
    expect(second!.startsAtUs - first!.startsAtUs).toBe(2_000_000);
  });

  it('keeps no credit from an idle spell, and its key only until the next free turn has passed', async () => {
    await pacers[0].reserve(route, 5, 0);
    const ttl = await connections[0].client.pttl(connections[0].keys.routePace(route));
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(200);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await connections[0].client.exists(connections[0].keys.routePace(route))).toBe(0);
    // After the pause the first call goes at once and the second still waits its full interval.
    expect(await pacers[0].reserve(route, 5, 1_000)).toMatchObject({ waitMs: 0 });
    const second = await pacers[1].reserve(route, 5, 1_000);
    expect(second!.waitMs).toBeGreaterThan(150);
  });
});
