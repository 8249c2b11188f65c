import { Prop, Schema, SchemaFactory } from '@nestjs/mongoose';

/** One delivered image, billed once: unique on (taskId, index), so a retried job can never bill it twice. */
@Schema({ collection: 'billing_records', versionKey: false })
export class BillingRecord {
  @Prop({ required: true }) taskId: string;
  @Prop({ required: true }) index: number;
  @Prop({ required: true, index: true }) appId: string;
  @Prop({ required: true }) model: string;
  @Prop({ required: true }) unitPrice: number;
  @Prop({ required: true }) currency: string;
  @Prop({ required: true }) day: string;
  @Prop({ type: Date, required: true }) createdAt: Date;
}

export const BillingRecordSchema = SchemaFactory.createForClass(BillingRecord);
BillingRecordSchema.index({ taskId: 1, index: 1 }, { unique: true });
