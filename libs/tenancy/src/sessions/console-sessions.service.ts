import { AppConfig, GatewayError, newId, randomBase62 } from '@gateway/common';
import { InvitationsRepository, UserRecord, UserRole, UsersRepository } from '@gateway/db';
import { GatewayRedis, RedisKeys } from '@gateway/redis';
import { Injectable } from '@nestjs/common';
import { hash, verify } from '@node-rs/argon2';
import Redis from 'ioredis';
import { createHash } from 'node:crypto';
import { checkNewPassword } from './password-policy';
import { SignInThrottle } from './sign-in-throttle';

export const SESSION_TTL_SECONDS = 7 * 86_400;
/** argon2id (@node-rs/argon2's Algorithm.Argon2id; the const enum is not importable under isolatedModules). */
const ARGON2ID = 2;

export interface ConsoleSession {
  userId: string;
  email: string;
  /** Read from the account on every request, so a change of role or a disabled account applies at once. */
  role: UserRole;
  /** Epoch ms the session was opened. */
  openedAt: number;
  /** Sent back in X-CSRF-Token on every state-changing console request. */
  csrfToken: string;
}

/** A sign-up either opens a session at once or, invited, is accepted without one (see registerInvited). */
export type Registration = { signedIn: { token: string; session: ConsoleSession } } | { accepted: true };

/**
 * Console accounts and their sessions. Passwords are argon2id hashes; sessions live in Redis under the SHA-256 of
 * their token (a Redis dump reveals no usable cookie) and carry a CSRF token. Sign-ins are throttled per account and
 * address, per address, and spaced out per account (SignInThrottle).
 */
@Injectable()
export class ConsoleSessionsService {
  private readonly redis: Redis;
  private readonly keys: RedisKeys;
  private readonly signup: AppConfig['CONSOLE_SIGNUP'];
  private readonly throttle: SignInThrottle;
  private decoyHash?: Promise<string>;

  constructor(
    config: AppConfig,
    redis: GatewayRedis,
    private readonly users: UsersRepository,
    private readonly invitations: InvitationsRepository,
  ) {
    this.redis = redis.client;
    this.keys = redis.keys;
    this.signup = config.CONSOLE_SIGNUP;
    this.throttle = new SignInThrottle(redis);
  }

  /**
   * Creates an account, always an ordinary one (`user`) unless an operator setup link is used: being first to reach
   * sign-up on an empty database makes no one an operator. With an invitation, the invitation decides (an operator
   * setup link is honoured under every CONSOLE_SIGNUP, others not under `closed`) and the answer opens no session
   * (see registerInvited); without one, CONSOLE_SIGNUP does.
   */
  async register(email: string, password: string, invitation?: string): Promise<Registration> {
    const normalized = email.toLowerCase();
    checkNewPassword(password, normalized);
    if (invitation !== undefined || this.signup === 'invite')
      return this.registerInvited(normalized, password, invitation);
    if (this.signup === 'closed') throw signupClosed();
    const user = await this.createAccount(normalized, password, 'user');
    if (!user) throw new GatewayError('AlreadyExists', 'an account with this email already exists', { param: 'email' });
    return { signedIn: await this.open(user) };
  }

  /**
   * An invited sign-up answers the same, in status, body and work done, whether or not the email already has an
   * account, so an invitation cannot be used to learn which emails are registered: the invitation is used up, the
   * password hashed and an insert tried either way, and no session is opened; the new account signs in as any other.
   * When the email is taken nothing changes for its account.
   */
  private async registerInvited(
    email: string,
    password: string,
    invitation: string | undefined,
  ): Promise<Registration> {
    if (!invitation)
      throw new GatewayError('InvalidInvitation', "an invitation from this gateway's operator is needed to sign up", {
        param: 'invitation',
      });
    const hashed = createHash('sha256').update(invitation).digest('hex');
    const found = await this.invitations.findByHash(hashed);
    const usable = found && found.expiresAt.getTime() > Date.now() && (!found.email || found.email === email);
    if (!usable)
      throw new GatewayError('InvalidInvitation', 'this invitation is unknown, used, expired or for another email', {
        param: 'invitation',
      });
    if (this.signup === 'closed' && found.role !== 'admin') throw signupClosed();
    if (!(await this.invitations.consume(hashed)))
      throw new GatewayError('InvalidInvitation', 'this invitation has just been used', { param: 'invitation' });
    await this.createAccount(email, password, found.role ?? 'user');
    return { accepted: true };
  }

  /** The new account, or null when the email already has one. */
  private async createAccount(email: string, password: string, role: UserRole): Promise<UserRecord | null> {
    return this.users.create({
      _id: newId('user'),
      email,
      passwordHash: await hash(password, { algorithm: ARGON2ID }),
      role,
    });
  }

  async login(
    email: string,
    password: string,
    address = 'unknown',
  ): Promise<{ token: string; session: ConsoleSession }> {
    const normalized = email.toLowerCase();
    const attempt = await this.throttle.reserve(normalized, address);
    const user = await this.users.findByEmail(normalized);
    // Verify against a decoy when the account does not exist, so timing does not reveal which emails are registered.
    const valid = await verify(user?.passwordHash ?? (await this.decoy()), password).catch(() => false);
    if (!user || !valid) {
      await attempt.failed();
      throw new GatewayError('InvalidCredentials', 'the email or password is wrong');
    }
    await attempt.succeeded();
    if (user.disabled)
      throw new GatewayError('AccountDisabled', "this account has been disabled by the gateway's operator");
    return this.open(user);
  }

  /** The session of a token, with the account's current role; null once the account is disabled or gone. */
  async find(token: string | undefined): Promise<ConsoleSession | null> {
    if (!token || token.length > 100) return null;
    const stored = await this.redis.get(this.keys.consoleSession(token));
    if (!stored) return null;
    const session = JSON.parse(stored) as ConsoleSession;
    const user = await this.users.findById(session.userId);
    if (
      !user ||
      user.disabled ||
      (user.sessionsEndedAt && new Date(user.sessionsEndedAt).getTime() >= (session.openedAt ?? 0))
    )
      return null;
    return { ...session, role: user.role ?? 'user' };
  }

  async close(token: string | undefined): Promise<void> {
    if (token) await this.redis.del(this.keys.consoleSession(token));
  }

  private async open(user: UserRecord): Promise<{ token: string; session: ConsoleSession }> {
    const token = randomBase62(43);
    const session: ConsoleSession = {
      userId: user._id,
      email: user.email,
      role: user.role ?? 'user',
      openedAt: Date.now(),
      csrfToken: randomBase62(32),
    };
    await this.redis.set(this.keys.consoleSession(token), JSON.stringify(session), 'EX', SESSION_TTL_SECONDS);
    return { token, session };
  }

  private decoy(): Promise<string> {
    this.decoyHash ??= hash(randomBase62(32), { algorithm: ARGON2ID });
    return this.decoyHash;
  }
}

function signupClosed(): GatewayError {
  return new GatewayError('SignupClosed', 'this gateway does not accept new accounts; ask its operator');
}
