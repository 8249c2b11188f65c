import type { LatencyHistogram } from '@gateway/common';
import { Prop, Schema, SchemaFactory } from '@nestjs/mongoose';

/**
 * Per application, model and UTC day: what the console charts. Maintained with $inc upserts (docs/contracts.md, collections). The key's
 * parts live only in `_id`: a 30-day chart returns about a hundred of these, and FerretDB's cost per document grows
 * with its fields.
 */
// `errors` is a mongoose document property, but these documents are only read lean, as plain objects.
@Schema({ collection: 'usage_daily', versionKey: false, suppressReservedKeysWarning: true })
export class UsageDaily {
  /** `${appId}|${model}|${day}`: one document per key, so an upsert never races into a duplicate. */
  @Prop({ type: String, required: true }) _id: string;
  /** `${appId}|${YYYY-MM}`: a range of days is read a month at a time, by equality (FerretDB serves no ranges). */
  @Prop({ required: true }) appMonth: string;
  /** The last usage batch folded into this roll-up (UsageLedger.fold): folding that batch again changes nothing. */
  @Prop({ type: String }) lastFold?: string;
  @Prop({ type: Number, default: 0 }) calls: number;
  @Prop({ type: Number, default: 0 }) errors: number;
  @Prop({ type: Number, default: 0 }) promptTokens: number;
  @Prop({ type: Number, default: 0 }) completionTokens: number;
  @Prop({ type: Number, default: 0 }) images: number;
  /** Integer nanos (1e-9) of the catalog currency (@gateway/common money): sums of integers stay exact. */
  @Prop({ type: Number, default: 0 }) costNanos: number;
  /**
   * Calls per latency bucket, by the bucket's upper bound in ms (@gateway/common latency-histogram): only the buckets
   * that were hit, so a roll-up grows by a few small fields.
   */
  @Prop({ type: Object }) latency?: LatencyHistogram;
}

export const UsageDailySchema = SchemaFactory.createForClass(UsageDaily);
UsageDailySchema.index({ appMonth: 1 });

export type UsageCounters = Pick<
  UsageDaily,
  'calls' | 'errors' | 'promptTokens' | 'completionTokens' | 'images' | 'costNanos'
>;

/** The roll-up of one application, model and UTC day. */
export interface UsageKey {
  appId: string;
  model: string;
  day: string;
}

/** One day's roll-up as listings return it; `latency` is empty for days counted before it was. */
export type UsageDay = UsageKey & UsageCounters & { latency: LatencyHistogram };

/** What one fold adds to a roll-up. */
export interface UsageIncrementOf {
  key: UsageKey;
  counters: UsageCounters;
  latency?: LatencyHistogram;
}
