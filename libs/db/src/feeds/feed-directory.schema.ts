import { Prop, Schema, SchemaFactory } from '@nestjs/mongoose';
import { Schema as MongooseSchema } from 'mongoose';

/**
 * Which feed pages exist for one application, feed and UTC month: `lastPage.d23` is the highest page number of
 * the 23rd. One document per month lets a listing over a range read its days' pages with a look-up per month.
 */
@Schema({ collection: 'feed_directory', versionKey: false })
export class FeedDirectory {
  /** `${feed}|${appId}|${YYYY-MM}` */
  @Prop({ type: String, required: true }) _id: string;
  @Prop({ type: MongooseSchema.Types.Mixed, default: {} }) lastPage: Record<string, number>;
}

export const FeedDirectorySchema = SchemaFactory.createForClass(FeedDirectory);
