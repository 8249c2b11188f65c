import { Prop, Schema, SchemaFactory } from '@nestjs/mongoose';
import { Schema as MongooseSchema } from 'mongoose';
import type { MoneyBudget } from '../applications/application.schema';

const USER_ROLES = ['admin', 'user'] as const;
export type UserRole = (typeof USER_ROLES)[number];

export interface UserCeilings {
  maxApplications?: number;
  /** The highest daily call limit an application may have; 0 (unlimited) is refused once set. */
  maxDailyCallLimit?: number;
  /** The highest token quota an application may have; 0 (unlimited) is refused once set. */
  maxTokenQuota?: number;
  /** What all of the user's applications together may spend per UTC day or month. */
  budget?: MoneyBudget;
}

/** A console account. The password is kept only as an argon2id hash. */
@Schema({ collection: 'users', versionKey: false })
export class User {
  @Prop({ type: String, required: true }) _id: string;
  /** Lower-cased. */
  @Prop({ required: true, unique: true }) email: string;
  @Prop({ required: true }) passwordHash: string;
  @Prop({ type: Date, required: true }) createdAt: Date;
  /** `admin`: an operator, who sees every user and application and runs the gateway. */
  @Prop({ type: String, enum: USER_ROLES, default: 'user' }) role: UserRole;
  /** A disabled account cannot sign in, and its applications' keys stop working. */
  @Prop({ type: Boolean, default: false }) disabled: boolean;
  /** Sessions opened before this instant are over: set when the account is disabled. */
  @Prop({ type: Date }) sessionsEndedAt?: Date;
  /** Operator-set limits on this user's applications; an absent field sets none. */
  @Prop({ type: MongooseSchema.Types.Mixed }) ceilings?: UserCeilings;
}

export const UserSchema = SchemaFactory.createForClass(User);
/** The operators: the last one of them cannot be demoted or disabled. */
UserSchema.index({ role: 1 });
