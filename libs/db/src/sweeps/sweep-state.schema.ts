import { Prop, Schema, SchemaFactory } from '@nestjs/mongoose';

/** How far one maintenance sweep has got: every bucket up to `through` (a day or a minute key) is done. */
@Schema({ collection: 'sweep_state', versionKey: false })
export class SweepState {
  @Prop({ type: String, required: true }) _id: string;
  @Prop({ required: true }) through: string;
  @Prop({ type: Date, required: true }) updatedAt: Date;
}

export const SweepStateSchema = SchemaFactory.createForClass(SweepState);
