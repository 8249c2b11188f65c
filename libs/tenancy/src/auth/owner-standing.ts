import type { ApplicationRecord, MoneyBudget, UsersRepository } from '@gateway/db';

/** What the hot path needs of an application's owner. */
export interface OwnerStanding {
  /** False once the owner's account is disabled. */
  served: boolean;
  /** The owner's budget across all their applications, set by an operator. */
  budget?: MoneyBudget;
}

/**
 * Whether an application may still be served (its owner's account is not disabled), and the owner's budget.
 * Applications made with the CLI have no owner. Read only when the auth cache is filled, so a disabled account's
 * keys stop, and a changed owner budget applies, within its refresh.
 */
export async function ownerStanding(users: UsersRepository, app: ApplicationRecord): Promise<OwnerStanding> {
  if (!app.ownerId) return { served: true };
  const owner = await users.findById(app.ownerId);
  const budget = owner?.ceilings?.budget;
  return { served: !owner?.disabled, ...(budget ? { budget } : {}) };
}
