import { reviveDates } from '../internal/revive-dates';
import type { NewTaskRecord } from './tasks.repository';

/** A finished task's record without its result body (that travels in the outcome), as filed in Redis. */
export type RecordFields = Omit<NewTaskRecord, 'result' | 'conversation'>;

/** What a worker files with a task's delivery, for whoever writes its record (and for reads meanwhile). */
export interface FiledRecord {
  record: RecordFields;
  /** The application wants a webhook once the record exists. */
  notify: boolean;
  /** A stored response's conversation, recorded beside its body (TaskResult.conversation). */
  conversation?: string;
  /** The task's span, with tracing on: its webhook delivery continues the trace. */
  traceparent?: string;
}

const DATE_FIELDS = ['createdAt', 'startedAt', 'finishedAt'] as const;

/** The JSON a task's delivery files for its record (OutcomeDelivery, PendingRecords). */
export function fileRecord(record: RecordFields, notify: boolean, conversation?: string, traceparent?: string): string {
  return JSON.stringify({
    record,
    notify,
    ...(conversation ? { conversation } : {}),
    ...(traceparent ? { traceparent } : {}),
  } satisfies FiledRecord);
}

/** A filed record read back, its dates revived. */
export function readFiledRecord(text: string): FiledRecord {
  const filed = JSON.parse(text) as FiledRecord;
  reviveDates(filed.record, ...DATE_FIELDS);
  return filed;
}
