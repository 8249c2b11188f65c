import { InvitationsRepository, UsersRepository } from '@gateway/db';
import { Injectable } from '@nestjs/common';
import { invitationLink, issueInvitation } from './invitation-tokens';

/** How long an operator setup link works: long enough to open it after `npm start`, short enough not to linger. */
export const OPERATOR_SETUP_HOURS = 24;

/**
 * The first operator of a gateway. No sign-up makes one by being first: the operator's account is created through a
 * one-time setup link that only someone with the gateway's database (the CLI, `npm start`) can issue. Issuing one
 * revokes the previous unused ones, so one link at most is open.
 */
@Injectable()
export class OperatorSetup {
  constructor(
    private readonly users: UsersRepository,
    private readonly invitations: InvitationsRepository,
  ) {}

  /** Whether the gateway has an operator who can sign in. */
  hasOperator(): Promise<boolean> {
    return this.users.hasActiveOperator();
  }

  /** A one-time link whose sign-up creates an operator account, valid `hours`. */
  async issueLink(baseUrl: string, hours = OPERATOR_SETUP_HOURS): Promise<{ link: string; expiresAt: Date }> {
    await this.invitations.revokeOperatorSetups();
    const { token, expiresAt } = await issueInvitation(this.invitations, { createdBy: 'cli', hours, role: 'admin' });
    return { link: invitationLink(baseUrl, token), expiresAt };
  }
}
