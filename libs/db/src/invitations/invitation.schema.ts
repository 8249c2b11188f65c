import { Prop, Schema, SchemaFactory } from '@nestjs/mongoose';
import type { UserRole } from '../users/user.schema';

/** An operator's single-use invitation to create a console account. Only the SHA-256 of its token is kept. */
@Schema({ collection: 'invitations', versionKey: false })
export class Invitation {
  /** SHA-256 of the token, hex. */
  @Prop({ type: String, required: true }) _id: string;
  /** The operator's account id, or `cli` for an operator setup link. */
  @Prop({ required: true }) createdBy: string;
  /** When set, only this email (lower-cased) may use it. */
  @Prop({ type: String }) email?: string;
  /**
   * `admin`: an operator setup link (from `gw operators:setup-link`, which `npm start` runs while the gateway has no
   * operator); the account it creates is an operator, whatever CONSOLE_SIGNUP says. Absent: an ordinary account.
   */
  @Prop({ type: String }) role?: UserRole;
  @Prop({ type: Date, required: true }) createdAt: Date;
  @Prop({ type: Date, required: true }) expiresAt: Date;
}

export const InvitationSchema = SchemaFactory.createForClass(Invitation);
InvitationSchema.index({ role: 1 });
