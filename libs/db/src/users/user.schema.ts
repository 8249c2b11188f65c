import { Prop, Schema, SchemaFactory } from '@nestjs/mongoose';

/** A console account. The password is kept only as an argon2id hash. */
@Schema({ collection: 'users', versionKey: false })
export class User {
  @Prop({ type: String, required: true }) _id: string;
  /** Lower-cased. */
  @Prop({ required: true, unique: true }) email: string;
  @Prop({ required: true }) passwordHash: string;
  @Prop({ type: Date, required: true }) createdAt: Date;
}

export const UserSchema = SchemaFactory.createForClass(User);
