import { Injectable } from '@nestjs/common';
import { GatewayRedis } from './gateway-redis.service';
import { defineScript } from './redis-script';

/**
 * Reserves the next free start ("next free slot", a GCRA that allows no burst): the key holds the earliest time the
 * following start may take, in µs on Redis's own clock, so workers with skewed clocks agree. A start further off than
 * ARGV[2] µs is refused and nothing is reserved; the key expires once that time has passed, when it means nothing.
 */
const RESERVE = defineScript<[pace: string], [intervalUs: number, maxWaitUs: number], [number, number] | null>({
  name: 'reserveStart',
  keys: 1,
  lua: `
local now = redis.call('TIME')
local nowUs = tonumber(now[1]) * 1000000 + tonumber(now[2])
local startUs = math.max(nowUs, tonumber(redis.call('GET', KEYS[1]) or 0))
if startUs - nowUs > tonumber(ARGV[2]) then return false end
local nextUs = startUs + tonumber(ARGV[1])
redis.call('SET', KEYS[1], string.format('%.0f', nextUs), 'PX', math.ceil((nextUs - nowUs) / 1000))
return {startUs, startUs - nowUs}`,
});

/** A reserved start: when, on Redis's clock, and how long the caller had to wait for it when it was reserved. */
export interface Turn {
  startsAtUs: number;
  waitMs: number;
}

/** Paces the starts of a route's calls to max_rps per second across every process on the Redis: one round trip a call. */
@Injectable()
export class RoutePacer {
  constructor(private readonly redis: GatewayRedis) {}

  /** The route's next start, `1 / maxRps` s after the one before it, or null when it is more than maxWaitMs away. */
  async reserve(routeKey: string, maxRps: number, maxWaitMs: number): Promise<Turn | null> {
    // Rounded up, so the pace never exceeds maxRps.
    const intervalUs = Math.ceil(1_000_000 / maxRps);
    const reply = await this.redis.run(
      RESERVE,
      [this.redis.keys.routePace(routeKey)],
      [intervalUs, Math.max(0, Math.floor(maxWaitMs * 1000))],
    );
    return reply && { startsAtUs: reply[0], waitMs: reply[1] / 1000 };
  }

  /** Waits for the route's next start; null, reserving nothing, when that start would come after `deadline` (epoch ms). */
  async pace(routeKey: string, maxRps: number, deadline: number): Promise<Turn | null> {
    const turn = await this.reserve(routeKey, maxRps, deadline - Date.now());
    if (!turn) return null;
    // A timer counts from the event loop's cached time and can fire a little early; a start must not.
    const until = performance.now() + turn.waitMs;
    for (let left = turn.waitMs; left > 0; left = until - performance.now()) {
      await new Promise((resolve) => setTimeout(resolve, Math.ceil(left)));
    }
    return turn;
  }
}
