import type { AuditRecord } from '@gateway/db';

/** A record on the wire (docs/contracts.md, audit log); `gw audit` prints the same shape. */
export function presentAuditRecord(record: AuditRecord) {
  return {
    id: record._id,
    action: record.action,
    actor: { id: record.actorId ?? null, email: record.actorEmail ?? null },
    address: record.address,
    app_id: record.appId ?? null,
    user_id: record.userId ?? null,
    changes: record.changes,
    created_at: new Date(record.createdAt).toISOString(),
  };
}
