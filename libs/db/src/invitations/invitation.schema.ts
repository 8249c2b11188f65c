import { Prop, Schema, SchemaFactory } from '@nestjs/mongoose';

/** An operator's single-use invitation to create a console account. Only the SHA-256 of its token is kept. */
@Schema({ collection: 'invitations', versionKey: false })
export class Invitation {
  /** SHA-256 of the token, hex. */
  @Prop({ type: String, required: true }) _id: string;
  @Prop({ required: true }) createdBy: string;
  /** When set, only this email (lower-cased) may use it. */
  @Prop({ type: String }) email?: string;
  @Prop({ type: Date, required: true }) createdAt: Date;
  @Prop({ type: Date, required: true }) expiresAt: Date;
}

export const InvitationSchema = SchemaFactory.createForClass(Invitation);
