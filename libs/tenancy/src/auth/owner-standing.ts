import type { ApplicationRecord, UsersRepository } from '@gateway/db';

/**
 * Whether an application may still be served: its owner's account is not disabled. Applications made with the CLI
 * have no owner. Read only when the auth cache is filled, so a disabled account's keys stop within its refresh.
 */
export async function ownerInGoodStanding(users: UsersRepository, app: ApplicationRecord): Promise<boolean> {
  if (!app.ownerId) return true;
  const owner = await users.findById(app.ownerId);
  return !owner?.disabled;
}
