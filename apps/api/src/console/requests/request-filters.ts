import { GatewayError } from '@gateway/common';
import { TaskFilter } from '@gateway/db';
import { RefusalFilter } from './console-refusals.service';
import { ExportedCalls, RequestsExport } from './console-requests-export.service';
import { dayRange } from '../listing-query';

type Query = Record<string, string | undefined>;

const TASK_STATUSES = ['succeeded', 'failed', 'cancelled'];
const MODES = ['sync', 'async'];
/** Catalog ids and aliases: letters, digits and `. _ - : / @ +`. */
const MODEL_PATTERN = /^[A-Za-z0-9][\w.:/@+-]{0,199}$/;
/** Error codes are PascalCase names (docs/contracts.md, errors). */
const CODE_PATTERN = /^[A-Z][A-Za-z0-9]{1,63}$/;
/** An API key's id, or `signature` for the signed requests. */
const KEY_PATTERN = /^(key_[0-9A-Za-z]{1,40}|signature)$/;

/**
 * The filter of an application's tasks listing: at most one of `model`, `status` (succeeded, failed, cancelled),
 * `code` (a failure's error code), `key_id` and `mode` (sync, async), each a feed of its own read by index; two at
 * once are refused rather than one silently ignored.
 */
export function taskFilter(query: Query): TaskFilter | undefined {
  const given = (['model', 'status', 'code', 'key_id', 'mode'] as const).filter((param) => query[param] !== undefined);
  if (given.length > 1)
    throw new GatewayError(
      'InvalidParameter',
      `tasks are filtered by one of model, status, code, key_id or mode at a time, not ${given.join(' and ')}`,
      { param: given[1] },
    );
  const param = given[0];
  if (param === undefined) return undefined;
  const value = query[param] as string;
  switch (param) {
    case 'model':
      return { field: 'model', value: model(value) };
    case 'status':
      return { field: 'status', value: oneOf('status', value, TASK_STATUSES) };
    case 'code':
      return { field: 'code', value: code(value) };
    case 'key_id':
      return { field: 'key', value: keyId(value) };
    case 'mode':
      return { field: 'mode', value: oneOf('mode', value, MODES) };
  }
}

/**
 * The filter of a refused-calls listing, read in memory from the capped list, so any of them combine: `from`/`to`
 * (UTC days, both optional), `model`, `code`, `status` (the HTTP status, 400 to 499), `key_id` and `mode`.
 */
export function refusalFilter(query: Query): RefusalFilter {
  const filter: RefusalFilter = {};
  if (query.from !== undefined || query.to !== undefined) {
    const range = dayRange(query.from, query.to);
    filter.from = range.from;
    filter.to = range.to;
  }
  if (query.model !== undefined) filter.model = model(query.model);
  if (query.code !== undefined) filter.code = code(query.code);
  if (query.key_id !== undefined) filter.keyId = keyId(query.key_id);
  if (query.mode !== undefined) filter.async = oneOf('mode', query.mode, MODES) === 'async';
  if (query.status !== undefined) {
    const status = Number(query.status);
    if (!/^4\d\d$/.test(query.status))
      throw new GatewayError('InvalidParameter', 'status must be an HTTP status from 400 to 499', { param: 'status' });
    filter.status = status;
  }
  return filter;
}

/**
 * What a Requests export writes: the day range, the tasks' filter and the same for the refused calls, and `calls`
 * (`all`, `tasks`, `refused`). A `status` (succeeded, failed, cancelled) is a task's, so it leaves the refused out.
 */
export function requestsExport(query: Query): RequestsExport {
  const range = dayRange(query.from, query.to);
  const filter = taskFilter(query);
  const calls = oneOf('calls', query.calls ?? 'all', ['all', 'tasks', 'refused']) as ExportedCalls;
  const refusalFilter: RefusalFilter = {};
  if (filter?.field === 'model') refusalFilter.model = filter.value;
  if (filter?.field === 'code') refusalFilter.code = filter.value;
  if (filter?.field === 'key') refusalFilter.keyId = filter.value;
  if (filter?.field === 'mode') refusalFilter.async = filter.value === 'async';
  return {
    ...range,
    taskFilter: filter,
    refusalFilter,
    calls: filter?.field === 'status' && calls === 'all' ? 'tasks' : calls,
  };
}

function model(value: string): string {
  return matching('model', value, MODEL_PATTERN, 'a model id such as text-embedding-v4');
}

function code(value: string): string {
  return matching('code', value, CODE_PATTERN, 'an error code such as RateLimited');
}

function keyId(value: string): string {
  return matching('key_id', value, KEY_PATTERN, 'an API key id (key_…) or signature');
}

function matching(param: string, value: string, pattern: RegExp, what: string): string {
  if (!pattern.test(value)) throw new GatewayError('InvalidParameter', `${param} must be ${what}`, { param });
  return value;
}

function oneOf(param: string, value: string, allowed: string[]): string {
  if (!allowed.includes(value))
    throw new GatewayError('InvalidParameter', `${param} must be one of ${allowed.join(', ')}`, { param });
  return value;
}
