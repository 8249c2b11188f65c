import { Prop, Schema, SchemaFactory } from '@nestjs/mongoose';

/**
 * The highest page number one application's feed has on one UTC day. One document per day, not per month: FerretDB
 * updates a document by reading and rewriting it whole, so writers of different days sharing a document could undo
 * each other's entries. Within a day a lost raise is harmless, since a listing also reads the page past `last`.
 */
@Schema({ collection: 'feed_directory', versionKey: false })
export class FeedDirectory {
  /** `${feed}|${appId}|${YYYY-MM-DD}` */
  @Prop({ type: String, required: true }) _id: string;
  /** `${feed}|${appId}|${YYYY-MM}`: a listing reads a month's days with one query. */
  @Prop({ required: true }) month: string;
  @Prop({ type: Number, required: true }) last: number;
}

export const FeedDirectorySchema = SchemaFactory.createForClass(FeedDirectory);
FeedDirectorySchema.index({ month: 1 });
