import { nanosToNumber } from '@gateway/common';
import type { TaskRecord } from '@gateway/db';

/** The body POSTed to an application's callback URL when one of its tasks finishes (README "Webhooks"). */

export type WebhookEventType = 'task.succeeded' | 'task.failed';

export interface WebhookEvent {
  type: WebhookEventType;
  /** When the event was built, ISO 8601. */
  timestamp: string;
  data: {
    task_id: string;
    app_id: string;
    endpoint: string;
    model: string;
    resolved_model: string;
    status: 'succeeded' | 'failed';
    usage: Record<string, number> | null;
    /** In the catalog currency: integer nanos as a JSON number, so it prints as the exact decimal. */
    cost: number;
    /** Output URLs (signed, expiring image URLs); empty for embeddings and chat. */
    result_urls: string[];
    error: { code: string; message: string; param: string | null } | null;
    created_at: string;
    finished_at: string | null;
  };
}

/** The fields of a stored task the event is built from, with its result body (for image URLs) while it is kept. */
export type WebhookTask = Pick<
  TaskRecord,
  | '_id'
  | 'appId'
  | 'endpoint'
  | 'model'
  | 'resolvedModel'
  | 'status'
  | 'usage'
  | 'costNanos'
  | 'error'
  | 'createdAt'
  | 'finishedAt'
> & { result?: string };

/** The event a task in `status` fires; null for statuses that fire none (queued, running, cancelled by a disconnect). */
export function webhookEventTypeOf(status: TaskRecord['status']): WebhookEventType | null {
  if (status === 'succeeded') return 'task.succeeded';
  if (status === 'failed') return 'task.failed';
  return null;
}

/**
 * The event for a finished task. It carries no result body (embedding vectors can be megabytes); receivers fetch
 * GET /v1/tasks/{id}. Pass a `now` fixed per delivery job so every attempt sends the same body.
 */
export function buildWebhookEvent(task: WebhookTask, now: Date): WebhookEvent {
  const type = webhookEventTypeOf(task.status);
  if (!type) throw new Error(`task ${task._id} is ${task.status}; only succeeded and failed tasks fire webhooks`);
  return {
    type,
    timestamp: now.toISOString(),
    data: {
      task_id: task._id,
      app_id: task.appId,
      endpoint: task.endpoint,
      model: task.model,
      resolved_model: task.resolvedModel,
      status: task.status as 'succeeded' | 'failed',
      usage: task.usage ? { ...task.usage } : null,
      cost: nanosToNumber(task.costNanos ?? 0),
      result_urls: resultUrls(task.result),
      error: task.error
        ? { code: task.error.code, message: task.error.message, param: task.error.param ?? null }
        : null,
      created_at: new Date(task.createdAt).toISOString(),
      finished_at: task.finishedAt ? new Date(task.finishedAt).toISOString() : null,
    },
  };
}

/**
 * The id receivers de-duplicate on: the same for every attempt and redelivery of one task's event. A task fires
 * one event, but the event is part of the id so that never depends on it.
 */
export function webhookIdOf(taskId: string, event: WebhookEventType): string {
  return `msg_${taskId}_${event.slice(event.indexOf('.') + 1)}`;
}

/** `data[].url` of a stored response body (image edits); [] for bodies without URLs or that do not parse. */
function resultUrls(result: string | undefined): string[] {
  // Embedding bodies can be megabytes of numbers; skip parsing a body that has no URL to find.
  if (!result || !result.includes('"url"')) return [];
  let body: unknown;
  try {
    body = JSON.parse(result);
  } catch {
    return [];
  }
  const items = (body as { data?: unknown } | null)?.data;
  if (!Array.isArray(items)) return [];
  return items
    .map((item) => (item as { url?: unknown } | null)?.url)
    .filter((url): url is string => typeof url === 'string');
}
