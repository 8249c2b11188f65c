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
  /** Read from api_key_last_used (ApiKeysRepository.listForApp), never stored here. */
  lastUsedAt?: Date;
  @Prop({ type: Date, required: true }) createdAt: Date;
  @Prop({ type: Date }) revokedAt?: Date;
}

export const ApiKeySchema = SchemaFactory.createForClass(ApiKey);

/**
 * A key's last authenticated call, folded in batches (KeyLastUsed), in a collection of its own: FerretDB writes an
 * update as the whole document, so a batch written into api_keys could put back a revocation or an expiry it raced.
 */
@Schema({ collection: 'api_key_last_used', versionKey: false })
export class ApiKeyLastUsed {
  /** The key's id. */
  @Prop({ type: String, required: true }) _id: string;
  @Prop({ type: Date, required: true }) lastUsedAt: Date;
}

export const ApiKeyLastUsedSchema = SchemaFactory.createForClass(ApiKeyLastUsed);
