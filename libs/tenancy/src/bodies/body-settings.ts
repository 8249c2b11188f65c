import { BODY_RETENTION_DAYS } from '@gateway/contracts';
import type { ApplicationRecord } from '@gateway/db';

type BodyFields = Pick<ApplicationRecord, 'logBodies' | 'bodyRetentionDays'>;

/** Whether the application keeps bodies and for how long, in wire names (an application saved before has neither). */
export function bodiesSettings(app: BodyFields): { log_bodies: boolean; body_retention_days: number } {
  return {
    log_bodies: app.logBodies ?? false,
    body_retention_days: app.bodyRetentionDays ?? BODY_RETENTION_DAYS.default,
  };
}

/** What a task job carries when its application keeps bodies; nothing otherwise, so other jobs stay as they were. */
export function keptBodiesOf(app: BodyFields): { retentionDays: number } | undefined {
  return app.logBodies ? { retentionDays: app.bodyRetentionDays ?? BODY_RETENTION_DAYS.default } : undefined;
}
