import { LOGGER } from '@gateway/common';
import { ApiKey, ApplicationRecord, AuditChange, AuditEntry, AuditLogRepository } from '@gateway/db';
import { Inject, Injectable } from '@nestjs/common';
import { Logger } from 'pino';
import { bodiesSettings } from '../bodies/body-settings';
import { budgetView } from '../limits/budget';

/** Who acted and from where: a console account and its request's address, or the operator CLI. */
export interface AuditActor {
  actorId?: string;
  actorEmail?: string;
  address: string;
}

export const CLI_ACTOR: AuditActor = { actorId: 'cli', address: 'cli' };

/** A console session's actor: its account and the request's address. */
export function consoleActor(session: { userId: string; email: string }, address: string): AuditActor {
  return { actorId: session.userId, actorEmail: session.email, address };
}

/**
 * Writes the audit record of an action that has been applied, before the action answers. A record that cannot be
 * written fails the answer (500) rather than leave an unaudited success; the change stands, and the whole record goes
 * to the error log so it can be inserted by hand (docs/architecture.md, audit log).
 */
@Injectable()
export class AuditTrail {
  constructor(
    private readonly log: AuditLogRepository,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  async record(actor: AuditActor, entry: Omit<AuditEntry, keyof AuditActor>): Promise<void> {
    const full: AuditEntry = { ...entry, ...actor };
    try {
      await this.log.record(full);
    } catch (error) {
      this.logger.error({ audit: full, err: (error as Error).message }, 'audit record not written; the change stands');
      throw error;
    }
  }
}

/** The fields of an application an audit record compares, in their wire names; never its sealed Secret Key. */
export function auditedApplication(app: ApplicationRecord): Record<string, unknown> {
  return {
    name: app.name,
    description: app.description,
    type: app.type,
    usage_scenario: app.usageScenario,
    expected_volume: app.expectedVolume,
    scope: { capabilities: app.scope?.capabilities ?? [], models: app.scope?.models ?? [] },
    daily_call_limit: app.dailyCallLimit,
    concurrency_limit: app.concurrencyLimit,
    requests_per_minute: app.requestsPerMinute,
    token_quota: app.tokenQuota,
    budget: budgetView(app.budget),
    ip_whitelist: app.ipWhitelist ?? [],
    callback_url: app.callbackUrl || null,
    ...bodiesSettings(app),
    status: app.status,
  };
}

/** An application's keys as an audit record shows them: display prefix, status and expiry, never the key or hash. */
export function auditedKeys(keys: Pick<ApiKey, 'prefix' | 'status' | 'expiresAt'>[]): Record<string, unknown>[] {
  return keys.map((key) => ({
    prefix: key.prefix,
    status: key.status,
    expires_at: key.expiresAt ? new Date(key.expiresAt).toISOString() : null,
  }));
}

/** The fields whose value differs, each before → after; a field one side lacks is null there. */
export function changedFields(
  before: Record<string, unknown> | null,
  after: Record<string, unknown> | null,
): Record<string, AuditChange> {
  const changes: Record<string, AuditChange> = {};
  for (const field of new Set([...Object.keys(before ?? {}), ...Object.keys(after ?? {})])) {
    const [was, is] = [before?.[field] ?? null, after?.[field] ?? null];
    if (JSON.stringify(was) !== JSON.stringify(is)) changes[field] = { before: was, after: is };
  }
  return changes;
}
