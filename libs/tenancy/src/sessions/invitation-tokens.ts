import { randomBase62 } from '@gateway/common';
import { InvitationsRepository, UserRole } from '@gateway/db';
import { createHash } from 'node:crypto';

/** The stored id of an invitation token: its SHA-256, so the database never holds a usable token. */
export function invitationHash(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** Issues a single-use invitation and returns its token, which exists only in this answer. */
export async function issueInvitation(
  invitations: InvitationsRepository,
  invitation: { createdBy: string; email?: string; hours: number; role?: UserRole },
): Promise<{ token: string; id: string; expiresAt: Date }> {
  const token = randomBase62(32);
  const id = invitationHash(token);
  const expiresAt = new Date(Date.now() + invitation.hours * 3_600_000);
  await invitations.create({
    _id: id,
    createdBy: invitation.createdBy,
    email: invitation.email?.toLowerCase(),
    role: invitation.role,
    expiresAt,
  });
  return { token, id, expiresAt };
}

/** Where a console sign-up with this invitation starts. */
export function invitationLink(baseUrl: string, token: string): string {
  return `${baseUrl.replace(/\/+$/, '')}/console/sign-up?invitation=${token}`;
}
