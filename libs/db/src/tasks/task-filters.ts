import type { FeedName } from '../feeds/feed-pages';
import type { Task } from './task.schema';

/** What the console's Requests listing narrows tasks by: one of these at a time, within a day range. */
export const TASK_FILTER_FIELDS = ['model', 'status', 'code', 'key', 'mode'] as const;
export type TaskFilterField = (typeof TASK_FILTER_FIELDS)[number];

/** One filter: `model` the requested model, `status` the final status, `code` a failure's error code, `key` the API key id (or `signature`), `mode` `sync` or `async`. */
export interface TaskFilter {
  field: TaskFilterField;
  value: string;
}

/**
 * The feed a filter lists, and its key: the application and the value, so each value is a feed of its own that is
 * read by equality at any size, as the audit log's `-action` feeds are. The value is URI-encoded so a `|` in it
 * cannot reach into the page key's separators.
 */
export function taskFilterFeed(appId: string, filter: TaskFilter): [FeedName, string] {
  return [`tasks-${filter.field}`, `${appId}:${encodeURIComponent(filter.value)}`];
}

/** Every filter a task is listed under. Records from before a field was recorded (keyId, async) lack its feed. */
export function taskFiltersOf(task: Pick<Task, 'model' | 'status' | 'error' | 'keyId' | 'async'>): TaskFilter[] {
  const filters: TaskFilter[] = [
    { field: 'model', value: task.model },
    { field: 'status', value: task.status },
  ];
  if (task.error?.code) filters.push({ field: 'code', value: task.error.code });
  if (task.keyId) filters.push({ field: 'key', value: task.keyId });
  if (task.async !== undefined) filters.push({ field: 'mode', value: task.async ? 'async' : 'sync' });
  return filters;
}
