import { reviveDates } from '../internal/revive-dates';
import type { NewTaskRecord } from './tasks.repository';

/** A finished task's record without its result body (that travels in the outcome), as filed in Redis. */
export type RecordFields = Omit<NewTaskRecord, 'result' | 'conversation'>;

/** A delivered image's bill, written as a billing record (`<task id>:<index>`) with the task's record. */
export interface FiledBill {
  /** The output's index in the task's `n`. */
  index: number;
  /** The unit price of the route that made it, in nanos of `currency`. */
  unitPriceNanos: number;
  currency: string;
}

/** What goes with a task's record besides its fields. */
export interface RecordExtras {
  /** A stored response's conversation, recorded beside its body (TaskResult.conversation). */
  conversation?: string;
  /** The task's span, with tracing on: its webhook delivery continues the trace. */
  traceparent?: string;
  /** An image edit's delivered images, billed with the record and only then: a task that failed bills nothing. */
  bills?: FiledBill[];
}

/** What a worker files with a task's delivery, for whoever writes its record (and for reads meanwhile). */
export interface FiledRecord extends RecordExtras {
  record: RecordFields;
  /** The application wants a webhook once the record exists. */
  notify: boolean;
}

const DATE_FIELDS = ['createdAt', 'startedAt', 'finishedAt'] as const;

/** The JSON a task's delivery files for its record (OutcomeDelivery, DeliveredTasks). */
export function fileRecord(
  record: RecordFields,
  notify: boolean,
  { conversation, traceparent, bills }: RecordExtras,
): string {
  return JSON.stringify({
    record,
    notify,
    ...(conversation ? { conversation } : {}),
    ...(traceparent ? { traceparent } : {}),
    ...(bills?.length ? { bills } : {}),
  } satisfies FiledRecord);
}

/** A filed record read back, its dates revived. */
export function readFiledRecord(text: string): FiledRecord {
  const filed = JSON.parse(text) as FiledRecord;
  reviveDates(filed.record, ...DATE_FIELDS);
  return filed;
}
