import { GatewayError, randomBase62 } from '@gateway/common';
import {
  ApplicationsRepository,
  InvitationsRepository,
  UserCeilings,
  UserRecord,
  UserRole,
  UsersRepository,
} from '@gateway/db';
import { Injectable } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { AuditActor, AuditTrail, changedFields } from '../audit/audit-trail';
import { accountAccess } from './account-access';

export interface AccountChanges {
  disabled?: boolean;
  role?: UserRole;
  ceilings?: UserCeilings;
}

/** What operators (`admin` accounts) do: see every account and application, disable, set ceilings, invite. */
@Injectable()
export class ConsoleOperatorsService {
  constructor(
    private readonly users: UsersRepository,
    private readonly applications: ApplicationsRepository,
    private readonly invitations: InvitationsRepository,
    private readonly audit: AuditTrail,
  ) {}

  async listUsers() {
    const [users, apps] = await Promise.all([this.users.list(), this.applications.list()]);
    const counts = new Map<string, number>();
    for (const app of apps)
      if (app.status === 'active' && app.ownerId) counts.set(app.ownerId, (counts.get(app.ownerId) ?? 0) + 1);
    return { data: users.map((user) => ({ ...presentUser(user), applications: counts.get(user._id) ?? 0 })) };
  }

  async listApplications() {
    const apps = await this.applications.list();
    return {
      data: apps.map((app) => ({
        id: app._id,
        name: app.name,
        owner_id: app.ownerId ?? null,
        status: app.status,
        type: app.type,
        daily_call_limit: app.dailyCallLimit,
        token_quota: app.tokenQuota,
        created_at: new Date(app.createdAt).toISOString(),
      })),
    };
  }

  /** An operator cannot disable or demote their own account: a gateway must keep one operator who can sign in. */
  async updateUser(operatorId: string, userId: string, changes: AccountChanges, actor: AuditActor) {
    if (userId === operatorId && (changes.disabled === true || changes.role === 'user')) {
      throw new GatewayError('InvalidParameter', 'you cannot disable or demote your own account', {
        param: changes.disabled ? 'disabled' : 'role',
      });
    }
    const before = await this.users.findById(userId);
    const user = before && (await this.users.update(userId, changes));
    if (!user) throw new GatewayError('NotFound', `no account ${userId}`, { param: 'user_id' });
    await this.audit.record(actor, {
      action: 'user.update',
      userId,
      changes: changedFields(accountAccess(before), accountAccess(user)),
    });
    return presentUser(user);
  }

  /** A single-use invitation; the token is shown once, only its hash is kept. */
  async invite(operatorId: string, email: string | undefined, hours: number) {
    const token = randomBase62(32);
    const expiresAt = new Date(Date.now() + hours * 3_600_000);
    await this.invitations.create({
      _id: createHash('sha256').update(token).digest('hex'),
      createdBy: operatorId,
      email: email?.toLowerCase(),
      expiresAt,
    });
    return { invitation: token, email: email?.toLowerCase() ?? null, expires_at: expiresAt.toISOString() };
  }
}

function presentUser(user: UserRecord) {
  return {
    id: user._id,
    email: user.email,
    ...accountAccess(user),
    created_at: new Date(user.createdAt).toISOString(),
  };
}
