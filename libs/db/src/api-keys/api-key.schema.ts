import { Prop, Schema, SchemaFactory } from '@nestjs/mongoose';

/** An API key, stored only as its SHA-256 hash and a display prefix (docs/contracts.md). */
@Schema({ collection: 'api_keys', versionKey: false })
export class ApiKey {
  @Prop({ type: String, required: true }) _id: string;
  @Prop({ required: true, index: true }) appId: string;
  @Prop({ required: true, unique: true }) hash: string;
  /** First characters of the key, enough to recognise it in a list. */
  @Prop({ required: true }) prefix: string;
  /** Chosen by the owner; keys issued before names read as "default". */
  @Prop({ type: String }) name?: string;
  @Prop({ type: String, enum: ['active', 'revoked'], default: 'active' }) status: 'active' | 'revoked';
  /** The key stops working then: the expiry it was created with, or the end of a rotation's grace period. */
  @Prop({ type: Date }) expiresAt?: Date;
  /** When a rotation replaced it; a key already replaced is not rotated again. */
  @Prop({ type: Date }) rotatedAt?: Date;
  /** The last authenticated call, to the minute or so: folded in batches, never written per request. */
  @Prop({ type: Date }) lastUsedAt?: Date;
  @Prop({ type: Date, required: true }) createdAt: Date;
  @Prop({ type: Date }) revokedAt?: Date;
}

export const ApiKeySchema = SchemaFactory.createForClass(ApiKey);
