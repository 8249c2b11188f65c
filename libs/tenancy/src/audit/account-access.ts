import type { UserRecord } from '@gateway/db';
import { budgetView } from '../limits/budget';

/** What an account may do, as the console shows it and the audit log compares it: role, standing and ceilings. */
export function accountAccess(user: UserRecord) {
  return {
    role: user.role ?? 'user',
    disabled: user.disabled ?? false,
    ceilings: {
      max_applications: user.ceilings?.maxApplications ?? null,
      max_daily_call_limit: user.ceilings?.maxDailyCallLimit ?? null,
      max_token_quota: user.ceilings?.maxTokenQuota ?? null,
      budget: budgetView(user.ceilings?.budget),
    },
  };
}
