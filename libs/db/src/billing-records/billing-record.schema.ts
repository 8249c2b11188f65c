import { Prop, Schema, SchemaFactory } from '@nestjs/mongoose';

/** One delivered image, billed once: unique on (taskId, index), so a retried job can never bill it twice. */
@Schema({ collection: 'billing_records', versionKey: false })
export class BillingRecord {
  /** `${taskId}:${index}` */
  @Prop({ type: String, required: true }) _id: string;
  @Prop({ required: true }) taskId: string;
  @Prop({ required: true }) index: number;
  @Prop({ required: true }) appId: string;
  @Prop({ required: true }) model: string;
  /** Integer nanos (1e-9) of `currency` (@gateway/common money). */
  @Prop({ required: true }) unitPriceNanos: number;
  @Prop({ required: true }) currency: string;
  @Prop({ required: true }) day: string;
  @Prop({ type: Date, required: true }) createdAt: Date;
}

export const BillingRecordSchema = SchemaFactory.createForClass(BillingRecord);
// Also serves the records of one task: a filter on its leading field.
BillingRecordSchema.index({ taskId: 1, index: 1 }, { unique: true });
// An application's records are listed through their rows in its `billing` feed (FeedPages).
