import { Prop, Schema, SchemaFactory } from '@nestjs/mongoose';

/** One side of a call as kept: JSON text, images replaced by their size, cut at the cap. */
export interface KeptBody {
  /** The body as JSON text, or its first KEPT_BODY_MAX_CHARS characters when `truncated`. */
  text: string;
  /** Characters of the whole body (images already replaced), before any cut. */
  chars: number;
  truncated: boolean;
}

/**
 * A task's request and response bodies, kept for an application that opted in (`logBodies`) until `expiresAt`.
 * Diagnostics, not records: written once after the task's answer, never updated, and deleted by the maintenance pass
 * by the hour they expire in (FerretDB 1.24 has no TTL index; docs/contracts.md, collections).
 */
@Schema({ collection: 'task_bodies', versionKey: false })
export class TaskBody {
  /** The task id. */
  @Prop({ type: String, required: true }) _id: string;
  @Prop({ required: true }) appId: string;
  @Prop({ type: Object, required: true }) request: KeptBody;
  @Prop({ type: Object, required: true }) response: KeptBody;
  @Prop({ type: Date, required: true }) createdAt: Date;
  @Prop({ type: Date, required: true }) expiresAt: Date;
  /** The UTC hour `expiresAt` falls in, YYYY-MM-DDTHH: what the expiry sweep deletes by (equality, by index). */
  @Prop({ required: true }) expiresHour: string;
}

export const TaskBodySchema = SchemaFactory.createForClass(TaskBody);
TaskBodySchema.index({ expiresHour: 1 });

/** The UTC hour an instant falls in, YYYY-MM-DDTHH. */
export function utcHour(at: Date | number): string {
  return new Date(at).toISOString().slice(0, 13);
}
