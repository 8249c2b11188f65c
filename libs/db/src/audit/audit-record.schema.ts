import { Prop, Schema, SchemaFactory } from '@nestjs/mongoose';
import { Schema as MongooseSchema } from 'mongoose';

/** A changed field's value before and after; null where it had none. Never a key, a Secret Key or a hash. */
export interface AuditChange {
  before: unknown;
  after: unknown;
}

/**
 * One console or CLI action that changed access, or a sign-in: inserted once, never updated or deleted. The console
 * lists them newest first through the `audit-*` feeds (FeedPages); `gw audit` exports them a day at a time.
 */
// minimize off: a sign-in changes nothing, and its empty `changes` must stay.
@Schema({ collection: 'audit_log', versionKey: false, minimize: false })
export class AuditRecord {
  /** `aud_…` */
  @Prop({ type: String, required: true }) _id: string;
  /** e.g. `application.update`, `auth.sign_in_failed` (docs/contracts.md, audit log). */
  @Prop({ required: true }) action: string;
  /** The console account that acted (absent for a failed sign-in with an unknown email), or `cli`. */
  @Prop({ type: String }) actorId?: string;
  /** The account's email; for a failed sign-in, the email that was tried. */
  @Prop({ type: String }) actorEmail?: string;
  /** The request's address (`request.ip`), or `cli`. */
  @Prop({ required: true }) address: string;
  /** The application acted on, if any. */
  @Prop({ type: String }) appId?: string;
  /** The application's owner when it was acted on: whose console lists the record. */
  @Prop({ type: String }) ownerId?: string;
  /** The account acted on, if any (sign-ins, disable, role and ceilings). */
  @Prop({ type: String }) userId?: string;
  /** Changed fields in their wire names (`daily_call_limit`, `api_keys`). */
  @Prop({ type: MongooseSchema.Types.Mixed, required: true }) changes: Record<string, AuditChange>;
  @Prop({ type: Date, required: true }) createdAt: Date;
  /** UTC day (YYYY-MM-DD): what `gw audit` reads by. */
  @Prop({ required: true }) day: string;
}

export const AuditRecordSchema = SchemaFactory.createForClass(AuditRecord);
AuditRecordSchema.index({ day: 1 });
