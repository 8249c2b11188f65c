import { loadConfig } from '@gateway/common';
import { EventEmitter } from 'node:events';
import pino from 'pino';
import { Writable } from 'node:stream';
import { CONNECTION_ERROR_REPORT_MS, reportConnectionErrors } from './connection-errors';
import { closeRedis, createRedis } from './redis-connections';

// A port nothing listens on: scripts/services.js takes one and gives it back, as for the suites' own servers.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const services = require('../../../scripts/services.js') as { freePort(): Promise<number> };

/** A pino logger whose JSON lines land in `lines`. */
function capturedLogger() {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
      done();
    },
  });
  return { logger: pino({ level: 'info' }, sink), lines };
}

describe('reportConnectionErrors', () => {
  it('logs the first error at once, then one line a minute with how many it left out', () => {
    const { logger, lines } = capturedLogger();
    const connection = new EventEmitter();
    let now = 1_000;
    reportConnectionErrors(connection, 'commands', logger, () => now);

    connection.emit('error', new Error('connect ECONNREFUSED'));
    for (let i = 0; i < 5; i += 1) {
      now += 1_000;
      connection.emit('error', new Error('connect ECONNREFUSED'));
    }
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: 40, connection: 'commands', err: 'connect ECONNREFUSED' });
    expect(lines[0]).not.toHaveProperty('leftOut');

    now = 1_000 + CONNECTION_ERROR_REPORT_MS;
    connection.emit('error', new Error('connect ETIMEDOUT'));
    expect(lines).toHaveLength(2);
    expect(lines[1]).toMatchObject({ connection: 'commands', err: 'connect ETIMEDOUT', leftOut: 5 });
  });

  it("keeps a connection to a Redis that is away off stderr: no '[ioredis] Unhandled error event' per attempt", async () => {
    const { logger, lines } = capturedLogger();
    const printed = jest.spyOn(console, 'error').mockImplementation(() => undefined);
    const config = loadConfig({
      REDIS_URL: `redis://127.0.0.1:${await services.freePort()}`,
      MASTER_KEY: 'ab'.repeat(32),
    });
    const client = createRedis(config, { maxRetriesPerRequest: 1, retryStrategy: () => 20 }, 'commands', logger);
    try {
      // Several reconnect attempts, each of which fails.
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(printed).not.toHaveBeenCalled();
      expect(lines).toEqual([
        expect.objectContaining({ connection: 'commands', msg: 'redis connection error', err: expect.any(String) }),
      ]);
    } finally {
      await closeRedis(client, 0);
      printed.mockRestore();
    }
  });
});
