import { CatalogService } from '@gateway/catalog';
import { formatNanos, GatewayError, utcDay } from '@gateway/common';
import { ApplicationRecord, ApplicationsRepository, TaskFilter, TaskRecord, TasksRepository } from '@gateway/db';
import { Injectable } from '@nestjs/common';
import { ConsoleRefusalsService, RefusalFilter } from './console-refusals.service';
import { csvLine } from '../csv';

/** Which calls an export writes: both, only those that became tasks, or only those refused before the queue. */
export type ExportedCalls = 'all' | 'tasks' | 'refused';

export interface RequestsExport {
  from: string;
  to: string;
  /** At most one, as the listings take it. */
  taskFilter?: TaskFilter;
  /** The same filter for the refused calls (any status filter is the tasks' own). */
  refusalFilter: RefusalFilter;
  calls: ExportedCalls;
}

/** Tasks read per feed slice while exporting: the listings' largest page. */
const EXPORT_PAGE = 200;

const HEADER = [
  'kind',
  'app_id',
  'time',
  'task_id',
  'request_id',
  'endpoint',
  'model',
  'status',
  'error_code',
  'error_message',
  'key_id',
  'mode',
  'latency_ms',
  'prompt_tokens',
  'completion_tokens',
  'images',
  'cost',
  'currency',
];

/**
 * The console's Requests as CSV (RFC 4180, formula-safe cells, csv.ts): per application its tasks newest first, read
 * a feed slice at a time through the same filtered feeds the listing reads, then its refused calls. Produced as the
 * answer is written, so an export of a busy year never sits in memory whole.
 */
@Injectable()
export class ConsoleRequestsExportService {
  constructor(
    private readonly applications: ApplicationsRepository,
    private readonly tasks: TasksRepository,
    private readonly refusals: ConsoleRefusalsService,
    private readonly catalog: CatalogService,
  ) {}

  /** One application's; its ownership is checked before the first line, so a stranger's id is a 404, not a file. */
  async forApplication(appId: string, ownerId: string, request: RequestsExport): Promise<AsyncIterable<string>> {
    const app = await this.applications.findOwned(appId, ownerId);
    if (!app) throw new GatewayError('NotFound', `no application ${appId} in your account`, { param: 'id' });
    return this.lines([app], request);
  }

  /** Every application of the account, one after the other. */
  async forAccount(ownerId: string, request: RequestsExport): Promise<AsyncIterable<string>> {
    return this.lines(await this.applications.list(ownerId), request);
  }

  private async *lines(apps: ApplicationRecord[], request: RequestsExport): AsyncIterable<string> {
    yield csvLine(HEADER);
    for (const app of apps) {
      if (request.calls !== 'refused') yield* this.taskLines(app, request);
      if (request.calls !== 'tasks') {
        const refused = await this.refusals.allForApplication(app._id, {
          ...request.refusalFilter,
          from: request.from,
          to: request.to,
        });
        for (const call of refused) {
          yield csvLine([
            'refused',
            call.app_id,
            call.at,
            null,
            call.request_id,
            `${call.method} ${call.route}`,
            call.model,
            call.status,
            call.code,
            call.message,
            call.key_id,
            call.async ? 'async' : 'sync',
            call.latency_ms,
            // No tokens, images or cost: nothing ran.
            null,
            null,
            null,
            null,
            null,
          ]);
        }
      }
    }
  }

  private async *taskLines(app: ApplicationRecord, request: RequestsExport): AsyncIterable<string> {
    // Nothing before the application existed: the feeds hold nothing there, and the listing starts there too.
    const created = utcDay(app.createdAt);
    const from = created > request.from ? created : request.from;
    if (from > request.to) return;
    let cursor: string | undefined;
    do {
      const slice = await this.tasks.listForApp(
        app._id,
        { from, to: request.to, limit: EXPORT_PAGE, cursor },
        request.taskFilter,
      );
      for (const task of slice.data) yield csvLine(this.taskCells(task));
      cursor = slice.next ?? undefined;
    } while (cursor);
  }

  private taskCells(task: TaskRecord): (string | number | null | undefined)[] {
    const usage = task.usage ?? {};
    return [
      'task',
      task.appId,
      new Date(task.createdAt).toISOString(),
      task._id,
      task.requestId,
      task.endpoint,
      task.model,
      task.status,
      task.error?.code,
      task.error?.message,
      task.keyId,
      task.async === undefined ? null : task.async ? 'async' : 'sync',
      task.finishedAt ? new Date(task.finishedAt).getTime() - new Date(task.createdAt).getTime() : null,
      usage.prompt_tokens,
      usage.completion_tokens,
      usage.images,
      formatNanos(task.costNanos),
      this.catalog.currency,
    ];
  }
}
