import { Prop, Schema, SchemaFactory } from '@nestjs/mongoose';
import { Schema as MongooseSchema } from 'mongoose';

import { APPLICATION_TYPES, ApplicationType, BudgetPeriod, CAPABILITIES } from '@gateway/contracts';

export { APPLICATION_TYPES, CAPABILITIES };
export type { ApplicationType };

@Schema({ _id: false, versionKey: false })
export class PermissionScope {
  /** Capabilities the application may call; empty means all. */
  @Prop({ type: [String], default: [] }) capabilities: string[];
  /** Model ids the application may call; empty means all. */
  @Prop({ type: [String], default: [] }) models: string[];
}

/** A money budget: at most `amountNanos` (integer nanos of the catalog currency) per UTC day or month. */
export interface MoneyBudget {
  amountNanos: number;
  period: BudgetPeriod;
}

/** An application of the console: who calls, with which limits (every console field of the spec). */
@Schema({ collection: 'applications', versionKey: false })
export class Application {
  @Prop({ type: String, required: true }) _id: string;
  @Prop({ type: String, index: true }) ownerId?: string;
  @Prop({ required: true, maxlength: 100 }) name: string;
  @Prop({ default: '', maxlength: 1000 }) description: string;
  @Prop({ type: String, enum: APPLICATION_TYPES, default: 'backend' }) type: ApplicationType;
  @Prop({ default: '', maxlength: 1000 }) usageScenario: string;
  /** Expected calls per day, as the owner estimated it. */
  @Prop({ type: Number, default: 0 }) expectedVolume: number;
  @Prop({ type: PermissionScope, default: () => ({ capabilities: [], models: [] }) }) scope: PermissionScope;
  /** Calls per UTC day; 0 means unlimited. */
  @Prop({ type: Number, default: 0 }) dailyCallLimit: number;
  /** Requests in flight at once; 0 means unlimited. */
  @Prop({ type: Number, default: 0 }) concurrencyLimit: number;
  @Prop({ type: Number, default: 0 }) requestsPerMinute: number;
  @Prop({ type: Number, default: 0 }) tokenQuota: number;
  /** Spending per period, enforced at admission; absent or null means none. */
  @Prop({ type: MongooseSchema.Types.Mixed, default: null }) budget?: MoneyBudget | null;
  @Prop({ type: [String], default: [] }) ipWhitelist: string[];
  @Prop({ type: String }) callbackUrl?: string;
  /** Set when the receiver answered 410 Gone: no more events until the callback URL is saved again. */
  @Prop({ type: Date, default: null }) callbackDisabledAt?: Date | null;
  /** Keep each call's request and response bodies (`task_bodies`); absent means off. */
  @Prop({ type: Boolean, default: false }) logBodies?: boolean;
  /** Days kept bodies live (1–30); absent means 7. */
  @Prop({ type: Number, default: 7 }) bodyRetentionDays?: number;
  /** AES-256-GCM under a master key: keyId.iv.tag.ciphertext, base64url (iv.tag.ciphertext before key ids). */
  @Prop({ required: true }) secretKeyEnc: string;
  @Prop({ type: String, enum: ['active', 'revoked'], default: 'active' }) status: 'active' | 'revoked';
  @Prop({ type: Date, required: true }) createdAt: Date;
  @Prop({ type: Date, required: true }) updatedAt: Date;
}

export const ApplicationSchema = SchemaFactory.createForClass(Application);
