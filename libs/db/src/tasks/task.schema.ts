import { Prop, Schema, SchemaFactory } from '@nestjs/mongoose';
import type { MeteredRoute, UpstreamAttempt } from '@gateway/contracts';
import { Schema as MongooseSchema } from 'mongoose';

const TASK_STATUSES = ['queued', 'running', 'succeeded', 'failed', 'cancelled'] as const;
export type TaskStatus = (typeof TASK_STATUSES)[number];

/**
 * One document per request, written once when the task reaches a final state; while it is queued or running
 * its state lives in its BullMQ job. Never holds image bytes, nor the response body: that lives in `task_results`,
 * which the retention sweep empties while this record, its usage and its cost stay.
 */
@Schema({ collection: 'tasks', versionKey: false })
export class Task {
  @Prop({ type: String, required: true }) _id: string;
  /** Read by `_id` and checked in code, never filtered on: see docs/decisions/embedded-database.md. */
  @Prop({ required: true }) appId: string;
  @Prop({ required: true }) requestId: string;
  @Prop({ required: true }) endpoint: string;
  @Prop({ required: true }) model: string;
  @Prop({ required: true }) resolvedModel: string;
  @Prop({ type: String }) provider?: string;
  /** The API key that called (`signature` for a signed request); absent on records from before it was kept. */
  @Prop({ type: String }) keyId?: string;
  /** The account owning the application when the task was made; absent on records from before it was kept. */
  @Prop({ type: String }) ownerId?: string;
  /** Asked for with `X-Async: enable` (false: the caller held the connection, streamed or not). */
  @Prop({ type: Boolean }) async?: boolean;
  /** The catalog route that served (`<upstream>:<model>`, `local:<model>`): the answers' X-Gateway-Route. */
  @Prop({ type: String }) route?: string;
  @Prop({ type: String, enum: TASK_STATUSES, required: true }) status: TaskStatus;
  @Prop({ type: Date, required: true }) createdAt: Date;
  @Prop({ type: Date }) startedAt?: Date;
  @Prop({ type: Date }) finishedAt?: Date;
  /** Time spent inside provider calls. */
  @Prop({ type: Number }) providerMs?: number;
  @Prop({ type: Number, default: 1 }) attempts: number;
  @Prop({ type: MongooseSchema.Types.Mixed }) usage?: Record<string, number>;
  /** Integer nanos (1e-9) of the catalog currency (@gateway/common money). */
  @Prop({ type: Number, default: 0 }) costNanos: number;
  @Prop({ type: MongooseSchema.Types.Mixed }) error?: { status: number; code: string; message: string; param?: string };
  /** The upstream calls the task made, with the upstream's request ids: for reconciling, never shown to callers. */
  @Prop({ type: [MongooseSchema.Types.Mixed], default: undefined }) upstream?: UpstreamAttempt[];
  /**
   * Per upstream route: what the gateway billed for its answers and what they stated they used, for reconciling with
   * the upstream's bill (`gw usage:reconcile --upstream`); absent when no upstream was called.
   */
  @Prop({ type: [MongooseSchema.Types.Mixed], default: undefined }) metered?: MeteredRoute[];
  /** UTC day (YYYY-MM-DD) for roll-ups without date operators (docs/contracts.md, collections). */
  @Prop({ required: true }) day: string;
}

/** Listed through its row in the application's `tasks` feed (FeedPages), so it needs no index but `_id`. */
export const TaskSchema = SchemaFactory.createForClass(Task);

/**
 * The response body a task's caller received, as JSON text: stored and served verbatim, and far cheaper to store
 * than nested arrays. Filed under its task's feed page, so the retention sweep deletes a page of them at once.
 */
@Schema({ collection: 'task_results', versionKey: false })
export class TaskResult {
  /** The task id. */
  @Prop({ type: String, required: true }) _id: string;
  /** Its task's page in the `tasks` feed: what the retention sweep deletes by. */
  @Prop({ required: true }) page: string;
  @Prop({ required: true }) body: string;
  /**
   * A stored response's conversation before its answer (chat messages as JSON text), what `previous_response_id`
   * continues; only for POST /v1/responses with `store`, and bounded (apps/worker/src/tasks/responses). Kept and
   * swept with the body.
   */
  @Prop({ type: String }) conversation?: string;
}

export const TaskResultSchema = SchemaFactory.createForClass(TaskResult);
TaskResultSchema.index({ page: 1 });
