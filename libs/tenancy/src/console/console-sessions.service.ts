import { AppConfig, GatewayError, newId, randomBase62 } from '@gateway/common';
import { UserRecord, UsersRepository } from '@gateway/db';
import { GatewayRedis } from '@gateway/queue';
import { Injectable } from '@nestjs/common';
import { hash, verify } from '@node-rs/argon2';
import Redis from 'ioredis';
import { createHash } from 'node:crypto';

export const SESSION_TTL_SECONDS = 7 * 86_400;
const LOGIN_FAILURES_ALLOWED = 10;
const LOGIN_FAILURE_WINDOW_SECONDS = 15 * 60;
/** argon2id (@node-rs/argon2's Algorithm.Argon2id; the const enum is not importable under isolatedModules). */
const ARGON2ID = 2;

export interface ConsoleSession {
  userId: string;
  email: string;
  /** Sent back in X-CSRF-Token on every state-changing console request. */
  csrfToken: string;
}

/**
 * Console accounts and their sessions. Passwords are argon2id hashes; sessions live in Redis under the SHA-256 of
 * their token (a Redis dump reveals no usable cookie) and carry a CSRF token. Failed logins per email are capped.
 */
@Injectable()
export class ConsoleSessionsService {
  private readonly redis: Redis;
  private readonly prefix: string;
  private decoyHash?: Promise<string>;

  constructor(config: AppConfig, redis: GatewayRedis, private readonly users: UsersRepository) {
    this.redis = redis.client;
    this.prefix = config.QUEUE_PREFIX;
  }

  async register(email: string, password: string): Promise<{ token: string; session: ConsoleSession }> {
    const user = await this.users.create({ _id: newId('user'), email: email.toLowerCase(), passwordHash: await hash(password, { algorithm: ARGON2ID }) });
    if (!user) throw new GatewayError('AlreadyExists', 'an account with this email already exists', { param: 'email' });
    return this.open(user);
  }

  async login(email: string, password: string): Promise<{ token: string; session: ConsoleSession }> {
    const normalized = email.toLowerCase();
    const failuresKey = `${this.prefix}:login-failures:${normalized}`;
    if (Number(await this.redis.get(failuresKey)) >= LOGIN_FAILURES_ALLOWED) {
      throw new GatewayError('RateLimited', 'too many failed sign-ins for this account; try again later', {
        headers: { 'retry-after': String(LOGIN_FAILURE_WINDOW_SECONDS) },
      });
    }
    const user = await this.users.findByEmail(normalized);
    // Verify against a decoy when the account does not exist, so timing does not reveal which emails are registered.
    const valid = await verify(user?.passwordHash ?? (await this.decoy()), password).catch(() => false);
    if (!user || !valid) {
      await this.redis.multi().incr(failuresKey).expire(failuresKey, LOGIN_FAILURE_WINDOW_SECONDS).exec();
      throw new GatewayError('InvalidCredentials', 'the email or password is wrong');
    }
    await this.redis.del(failuresKey);
    return this.open(user);
  }

  async find(token: string | undefined): Promise<ConsoleSession | null> {
    if (!token || token.length > 100) return null;
    const stored = await this.redis.get(this.key(token));
    return stored ? (JSON.parse(stored) as ConsoleSession) : null;
  }

  async close(token: string | undefined): Promise<void> {
    if (token) await this.redis.del(this.key(token));
  }

  private async open(user: UserRecord): Promise<{ token: string; session: ConsoleSession }> {
    const token = randomBase62(43);
    const session: ConsoleSession = { userId: user._id, email: user.email, csrfToken: randomBase62(32) };
    await this.redis.set(this.key(token), JSON.stringify(session), 'EX', SESSION_TTL_SECONDS);
    return { token, session };
  }

  private key(token: string): string {
    return `${this.prefix}:session:${createHash('sha256').update(token).digest('hex')}`;
  }

  private decoy(): Promise<string> {
    this.decoyHash ??= hash(randomBase62(32), { algorithm: ARGON2ID });
    return this.decoyHash;
  }
}
