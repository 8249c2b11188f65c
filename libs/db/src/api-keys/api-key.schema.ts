import { Prop, Schema, SchemaFactory } from '@nestjs/mongoose';

/** An API key, stored only as its SHA-256 hash and a display prefix (docs/contracts.md). */
@Schema({ collection: 'api_keys', versionKey: false })
export class ApiKey {
  @Prop({ type: String, required: true }) _id: string;
  @Prop({ required: true, index: true }) appId: string;
  @Prop({ required: true, unique: true }) hash: string;
  /** First characters of the key, enough to recognise it in a list. */
  @Prop({ required: true }) prefix: string;
  @Prop({ type: String, enum: ['active', 'revoked'], default: 'active' }) status: 'active' | 'revoked';
  /** A rotated key keeps working until then. */
  @Prop({ type: Date }) expiresAt?: Date;
  @Prop({ type: Date, required: true }) createdAt: Date;
  @Prop({ type: Date }) revokedAt?: Date;
}

export const ApiKeySchema = SchemaFactory.createForClass(ApiKey);
