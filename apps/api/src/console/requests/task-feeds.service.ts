import { formatNanos } from '@gateway/common';
import {
  BillingRecord,
  BillingRecordsRepository,
  FeedQuery,
  TaskFilter,
  TaskRecord,
  TasksRepository,
} from '@gateway/db';
import { Injectable } from '@nestjs/common';
import { OwnedApplications } from '../applications/owned-applications';
import { applicationPage, fromCreation, listing } from '../feed-listing';

/** The recorded tasks and per-image billing records, per owned application and across the account. */
@Injectable()
export class TaskFeeds {
  constructor(
    private readonly owned: OwnedApplications,
    private readonly tasks: TasksRepository,
    private readonly billing: BillingRecordsRepository,
  ) {}

  /**
   * The application's finished tasks, most recently finished first, optionally one filter's (TaskFilter); result
   * bodies are fetched per task by the API.
   */
  async forApplication(appId: string, ownerId: string, query: FeedQuery, filter?: TaskFilter) {
    const since = fromCreation(await this.owned.find(appId, ownerId), query);
    return applicationPage(appId, await listing(() => this.tasks.listForApp(appId, since, filter)), presentTask);
  }

  /**
   * The tasks of every application of the account, most recently recorded first, over a day range (filters are per
   * application): the account's own feed, filed by the worker from the owner the task was made under.
   */
  async forAccount(ownerId: string, query: FeedQuery) {
    const slice = await listing(() => this.tasks.listForOwner(ownerId, query));
    return { data: slice.data.map((task) => ({ app_id: task.appId, ...presentTask(task) })), next: slice.next };
  }

  /** The application's per-image billing records, most recently billed first. */
  async billingRecords(appId: string, ownerId: string, query: FeedQuery) {
    const since = fromCreation(await this.owned.find(appId, ownerId), query);
    return applicationPage(appId, await listing(() => this.billing.listForApp(appId, since)), presentBillingRecord);
  }
}

function presentTask(task: TaskRecord) {
  return {
    id: task._id,
    status: task.status,
    endpoint: task.endpoint,
    model: task.model,
    resolved_model: task.resolvedModel,
    key_id: task.keyId ?? null,
    async: task.async ?? null,
    usage: task.usage ?? null,
    cost_nanos: String(task.costNanos),
    cost: formatNanos(task.costNanos),
    error: task.error ? { code: task.error.code, message: task.error.message } : null,
    created_at: new Date(task.createdAt).toISOString(),
    finished_at: task.finishedAt ? new Date(task.finishedAt).toISOString() : null,
  };
}

function presentBillingRecord(record: BillingRecord) {
  return {
    task_id: record.taskId,
    image_index: record.index,
    model: record.model,
    unit_price_nanos: String(record.unitPriceNanos),
    unit_price: formatNanos(record.unitPriceNanos),
    currency: record.currency,
    day: record.day,
    created_at: new Date(record.createdAt).toISOString(),
  };
}
