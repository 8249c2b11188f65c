import type { ChainableCommander, Cluster, Redis } from 'ioredis';

/** What a script takes in ARGV. */
export type ScriptArg = string | number;

/** Where a script runs: one server or a Sentinel's master (Redis), or a Cluster, which sends it to its keys' node. */
export type ScriptClient = Redis | Cluster;

/**
 * How many KEYS a script takes: fixed for a tuple of keys, or `'variable'` when the count depends on the call (the
 * count is then sent with each call, before the keys).
 */
export type KeyCount<Keys extends readonly string[]> = number extends Keys['length'] ? 'variable' : Keys['length'];

export interface ScriptDefinition<Keys extends readonly string[]> {
  /** The command name the script is defined under on each client: unique among the gateway's scripts. */
  name: string;
  keys: KeyCount<Keys>;
  lua: string;
}

type ScriptCommand<Result> = (...keysAndArgs: ScriptArg[]) => Promise<Result>;

/**
 * A Lua script with typed KEYS, ARGV and answer. It runs through ioredis' defineCommand, so each call is an EVALSHA
 * that falls back to EVAL when the server does not know the script (a restart, a failover, another Cluster node),
 * and it is defined on a client the first time it runs there.
 */
export class RedisScript<Keys extends readonly string[], Args extends readonly ScriptArg[], Result> {
  constructor(private readonly definition: ScriptDefinition<Keys>) {}

  get name(): string {
    return this.definition.name;
  }

  /** Runs the script on `client`. */
  run(client: ScriptClient, keys: Keys, args: Args): Promise<Result> {
    this.defineOn(client);
    return this.commandOf(client).apply(client, this.keysAndArgs(keys, args));
  }

  /**
   * Adds a call to a pipeline or MULTI. ioredis copies a client's scripts into a pipeline when the pipeline is made,
   * so the script must be defined on that client before (defineOn); its answer is then the pipeline's at this place.
   */
  queue(commands: ChainableCommander, keys: Keys, args: Args): void {
    const command = (commands as unknown as Record<string, ScriptCommand<unknown> | undefined>)[this.name];
    if (typeof command !== 'function')
      throw new Error(`script ${this.name} was not defined on the client before this pipeline was made`);
    void command.apply(commands, this.keysAndArgs(keys, args));
  }

  /** Defines the script on `client`, once: a name taken by another script is refused rather than overwritten. */
  defineOn(client: ScriptClient): void {
    const defined = (client.scriptsSet as Record<string, { lua: string } | undefined>)[this.name];
    if (defined?.lua === this.definition.lua) return;
    if (defined) throw new Error(`another script is already defined as ${this.name}`);
    const { keys, lua } = this.definition;
    client.defineCommand(this.name, keys === 'variable' ? { lua } : { numberOfKeys: keys, lua });
  }

  private commandOf(client: ScriptClient): ScriptCommand<Result> {
    return (client as unknown as Record<string, ScriptCommand<Result>>)[this.name];
  }

  private keysAndArgs(keys: Keys, args: Args): ScriptArg[] {
    const count = this.definition.keys === 'variable' ? [keys.length] : [];
    return [...count, ...keys, ...args];
  }
}

/**
 * Declares a script once, at module level:
 * `const ACQUIRE = defineScript<[semaphore: string], [limit: number, leaseMs: number, id: string], 0 | 1>({ name: 'acquireLease', keys: 1, lua })`,
 * then `redis.run(ACQUIRE, [key], [limit, leaseMs, id])` (GatewayRedis) or `ACQUIRE.run(client, keys, args)`.
 */
export function defineScript<Keys extends readonly string[], Args extends readonly ScriptArg[], Result>(
  definition: ScriptDefinition<Keys>,
): RedisScript<Keys, Args, Result> {
  return new RedisScript<Keys, Args, Result>(definition);
}
