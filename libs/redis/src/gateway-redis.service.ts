import { AppConfig, LOGGER } from '@gateway/common';
import { Inject, Injectable, OnApplicationShutdown } from '@nestjs/common';
import Redis from 'ioredis';
import { Logger } from 'pino';
import { closeRedis, createRedis } from './redis-connections';
import { RedisKeys } from './redis-keys';
import { RedisScript, ScriptArg } from './redis-script';

/**
 * The process's one connection for plain commands and scripts (outcomes, leases, limits, nonces, sessions), with
 * the deployment's keys under its REDIS_PREFIX; BullMQ and the reply subscription keep their own connections, as
 * blocking and subscribed connections must. Closed in the last shutdown phase, after workers have drained in
 * beforeApplicationShutdown.
 */
@Injectable()
export class GatewayRedis implements OnApplicationShutdown {
  readonly client: Redis;
  readonly keys: RedisKeys;

  constructor(config: AppConfig, @Inject(LOGGER) logger: Logger) {
    this.client = createRedis(config, { maxRetriesPerRequest: 2 }, 'commands', logger);
    this.keys = new RedisKeys(config.redisKeyPrefix);
  }

  /** Runs a script (defineScript) on this connection. */
  run<Keys extends readonly string[], Args extends readonly ScriptArg[], Result>(
    script: RedisScript<Keys, Args, Result>,
    keys: NoInfer<Keys>,
    args: NoInfer<Args>,
  ): Promise<Result> {
    return script.run(this.client, keys, args);
  }

  async onApplicationShutdown(): Promise<void> {
    await closeRedis(this.client);
  }
}
