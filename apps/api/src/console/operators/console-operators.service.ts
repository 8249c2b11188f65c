import { AppConfig, GatewayError } from '@gateway/common';
import {
  ApplicationRecord,
  ApplicationsRepository,
  CeilingChanges,
  FeedSlice,
  InvalidCursorError,
  Invitation,
  InvitationsRepository,
  UsageDailyRepository,
  UserRecord,
  UserRole,
  UsersRepository,
} from '@gateway/db';
import { Injectable } from '@nestjs/common';
import { accountAccess, AuditActor, AuditTrail, changedFields, issueInvitation } from '@gateway/tenancy';
import { usageTotals } from '../usage/usage-totals';

export interface AccountChanges {
  disabled?: boolean;
  role?: UserRole;
  /** Merged into the account's ceilings: null lifts one, an absent one stays. */
  ceilings?: CeilingChanges;
}

/** What operators (`admin` accounts) do: see every account and application, disable, set ceilings, invite. */
@Injectable()
export class ConsoleOperatorsService {
  constructor(
    private readonly users: UsersRepository,
    private readonly applications: ApplicationsRepository,
    private readonly invitations: InvitationsRepository,
    private readonly usage: UsageDailyRepository,
    private readonly audit: AuditTrail,
    private readonly config: AppConfig,
  ) {}

  /** Who may create an account (CONSOLE_SIGNUP); the console says what each value means. */
  signupPolicy() {
    return { signup: this.config.CONSOLE_SIGNUP };
  }

  async listUsers() {
    const [users, apps] = await Promise.all([this.users.list(), this.applications.list()]);
    const counts = new Map<string, number>();
    for (const app of apps)
      if (app.status === 'active' && app.ownerId) counts.set(app.ownerId, (counts.get(app.ownerId) ?? 0) + 1);
    return { data: users.map((user) => ({ ...presentUser(user), applications: counts.get(user._id) ?? 0 })) };
  }

  /**
   * Every account's applications with their owner, newest first, a page at a time: the page's applications by their
   * listing's feed pages, then by `_id`, and each owner on the page by `_id`, so a page costs the same at any number of
   * applications and accounts. A cursor the listing did not hand out is refused (400, param `cursor`).
   */
  async listApplications(cursor: string | undefined, limit: number) {
    let page: FeedSlice<ApplicationRecord>;
    try {
      page = await this.applications.newestFirst(cursor, limit);
    } catch (error) {
      if (error instanceof InvalidCursorError)
        throw new GatewayError('InvalidParameter', error.message, { param: 'cursor' });
      throw error;
    }
    const ownerIds = [...new Set(page.data.flatMap((app) => (app.ownerId ? [app.ownerId] : [])))];
    const owners = await Promise.all(ownerIds.map((id) => this.users.findById(id)));
    const emails = new Map(owners.flatMap((owner) => (owner ? [[owner._id, owner.email] as const] : [])));
    return {
      data: page.data.map((app) => ({
        id: app._id,
        name: app.name,
        owner_id: app.ownerId ?? null,
        owner_email: (app.ownerId && emails.get(app.ownerId)) ?? null,
        status: app.status,
        type: app.type,
        daily_call_limit: app.dailyCallLimit,
        token_quota: app.tokenQuota,
        created_at: new Date(app.createdAt).toISOString(),
      })),
      next: page.next,
    };
  }

  /** An account's usage over `from`..`to`, in total and per application (deleted ones included: they were used). */
  async userUsage(userId: string, from: string, to: string) {
    if (!(await this.users.findById(userId)))
      throw new GatewayError('NotFound', `no account ${userId}`, { param: 'id' });
    const apps = await this.applications.list(userId);
    const perApp = await Promise.all(apps.map((app) => this.usage.listForApp(app._id, from, to)));
    return {
      user_id: userId,
      from,
      to,
      total: usageTotals(perApp.flat()),
      by_application: apps.map((app, index) => ({
        app_id: app._id,
        name: app.name,
        status: app.status,
        ...usageTotals(perApp[index]),
      })),
    };
  }

  /** The unused invitations, newest first, expired ones marked; operator setup links among them. */
  async listInvitations() {
    const now = Date.now();
    return { data: (await this.invitations.list()).map((invitation) => presentInvitation(invitation, now)) };
  }

  /** Revokes an unused invitation: its link stops working at once. */
  async revokeInvitation(id: string) {
    if (!(await this.invitations.consume(id)))
      throw new GatewayError('NotFound', 'no unused invitation with this id', { param: 'id' });
    return { id, status: 'revoked' as const };
  }

  /**
   * An operator cannot disable or demote their own account, and no change leaves the gateway without an operator who
   * can sign in: two operators demoting each other at the same moment are checked after the change, which is undone
   * (409 LastOperator) when none would remain.
   */
  async updateUser(operatorId: string, userId: string, changes: AccountChanges, actor: AuditActor) {
    const param = changes.disabled === true ? 'disabled' : 'role';
    const removesOperator = changes.disabled === true || changes.role === 'user';
    if (userId === operatorId && removesOperator)
      throw new GatewayError('InvalidParameter', 'you cannot disable or demote your own account', { param });
    const before = await this.users.findById(userId);
    const user = before && (await this.users.update(userId, changes));
    if (!user) throw new GatewayError('NotFound', `no account ${userId}`, { param: 'user_id' });
    if (removesOperator && before.role === 'admin' && !(await this.users.hasActiveOperator())) {
      await this.users.update(userId, { role: before.role, disabled: before.disabled });
      throw new GatewayError('LastOperator', 'this would leave the gateway without an operator who can sign in', {
        param,
      });
    }
    await this.audit.record(actor, {
      action: 'user.update',
      userId,
      changes: changedFields(accountAccess(before), accountAccess(user)),
    });
    return presentUser(user);
  }

  /** A single-use invitation; the token is shown once, only its hash is kept. */
  async invite(operatorId: string, email: string | undefined, hours: number) {
    const { token, id, expiresAt } = await issueInvitation(this.invitations, { createdBy: operatorId, email, hours });
    return { id, invitation: token, email: email?.toLowerCase() ?? null, expires_at: expiresAt.toISOString() };
  }
}

function presentInvitation(invitation: Invitation, now: number) {
  return {
    id: invitation._id,
    email: invitation.email ?? null,
    role: invitation.role ?? 'user',
    created_by: invitation.createdBy,
    created_at: new Date(invitation.createdAt).toISOString(),
    expires_at: new Date(invitation.expiresAt).toISOString(),
    expired: new Date(invitation.expiresAt).getTime() <= now,
  };
}

function presentUser(user: UserRecord) {
  return {
    id: user._id,
    email: user.email,
    ...accountAccess(user),
    created_at: new Date(user.createdAt).toISOString(),
  };
}
