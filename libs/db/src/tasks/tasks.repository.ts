import { utcDay } from '@gateway/common';
import { TaskIdentity } from '@gateway/contracts';
import { Injectable } from '@nestjs/common';
import { InjectModel } from '@nestjs/mongoose';
import { Model } from 'mongoose';
import { FeedName, FeedPages, FeedQuery, FeedSlice } from '../feeds/feed-pages';
import { GroupCommitInserter, insertTargetOf } from '../internal/group-commit';
import { reviveDates } from '../internal/revive-dates';
import { TaskFilter, taskFilterFeed, taskFiltersOf } from './task-filters';
import { Task, TaskResult } from './task.schema';

export type TaskRecord = Task;

/**
 * What the worker records: the task, the body its caller received when it succeeded, and a stored response's
 * conversation (TaskResult.conversation).
 */
export type NewTaskRecord = Task & { result?: string; conversation?: string };

/** The fields of a task record that come from the request itself, whoever writes the record. */
export function taskBase(
  task: TaskIdentity,
): Pick<
  Task,
  | '_id'
  | 'appId'
  | 'requestId'
  | 'endpoint'
  | 'model'
  | 'resolvedModel'
  | 'createdAt'
  | 'day'
  | 'keyId'
  | 'async'
  | 'ownerId'
> {
  return {
    _id: task.taskId,
    appId: task.appId,
    requestId: task.requestId,
    endpoint: task.endpoint,
    model: task.model,
    resolvedModel: task.resolvedModel,
    createdAt: new Date(task.createdAt),
    day: utcDay(task.createdAt),
    ...(task.keyId ? { keyId: task.keyId } : {}),
    ...(task.async !== undefined ? { async: task.async } : {}),
    ...(task.ownerId ? { ownerId: task.ownerId } : {}),
  };
}

/**
 * Task records and their result bodies. Every read is by `_id` or by feed page, the two things the embedded
 * database serves by index; ownership is checked on the record, not in the filter.
 */
@Injectable()
export class TasksRepository {
  private readonly taskInserter: GroupCommitInserter<Task>;
  private readonly resultInserter: GroupCommitInserter<TaskResult>;

  constructor(
    @InjectModel(Task.name) private readonly model: Model<Task>,
    @InjectModel(TaskResult.name) private readonly results: Model<TaskResult>,
    private readonly feeds: FeedPages,
  ) {
    this.taskInserter = new GroupCommitInserter<Task>(() => insertTargetOf(this.model));
    this.resultInserter = new GroupCommitInserter<TaskResult>(() => insertTargetOf(this.results));
  }

  /**
   * Records a finished task; idempotent per task id, so a retried job never records twice. The body goes first, so
   * a record that can be read always has its body until retention removes it; the feed row last, and from the
   * record that was kept when an earlier attempt got there first (its filter feeds' rows just before).
   */
  async record(task: NewTaskRecord): Promise<void> {
    await this.recordEach([task]);
  }

  /** Records finished tasks as `record` does, each step one write for all of them. */
  async recordEach(records: NewTaskRecord[]): Promise<void> {
    const places = await this.feeds.placeEach('tasks', records);
    const results = records.flatMap(({ _id, result, conversation }, i) =>
      result === undefined
        ? []
        : [{ _id, page: places[i].page, body: result, ...(conversation ? { conversation } : {}) }],
    );
    await this.resultInserter.insertMany(results);
    const tasks = records.map(({ result: _result, conversation: _conversation, ...task }) => task);
    const inserted = await this.taskInserter.insertMany(tasks);
    const kept = await Promise.all(
      tasks.map((task, i) => (inserted[i] ? Promise.resolve(task) : this.findById(task._id))),
    );
    // Under its filters first: a task the unfiltered listing shows is in every filtered one too.
    await this.fileFiltered(kept.filter((record): record is TaskRecord => record !== null));
    await this.feeds.fileEach(
      'tasks',
      kept.flatMap((record, i) => (record ? [{ record, place: places[i] }] : [])),
    );
  }

  /**
   * Files each record once more per filter it is listed under (task-filters.ts), numbered per feed, application,
   * value and day: a filtered listing then reads only its value's pages. From the records kept, so a retried job's
   * filters are those of the record that is listed; the rows leave out the upstream calls, which no listing shows.
   */
  private async fileFiltered(records: TaskRecord[]): Promise<void> {
    const placed = await this.feeds.placeInFeeds(
      records.flatMap(({ upstream: _upstream, metered: _metered, ...record }) => [
        ...taskFiltersOf(record).map((filter) => {
          const [feed, key] = taskFilterFeed(record.appId, filter);
          return { feed, key, record };
        }),
        // The account's listing across its applications.
        ...(record.ownerId ? [{ feed: 'tasks-owner' as const, key: record.ownerId, record }] : []),
      ]),
    );
    await Promise.all(placed.map(({ feed, filings }) => this.feeds.fileEach(feed, filings)));
  }

  /** A task of this application; another application's task id reads as absent. */
  async findForApp(taskId: string, appId: string): Promise<TaskRecord | null> {
    const task = await this.findById(taskId);
    return task?.appId === appId ? task : null;
  }

  findById(taskId: string): Promise<TaskRecord | null> {
    return this.model.findById(taskId).lean<TaskRecord>().exec();
  }

  /** The body a succeeded task answered with; null once retention has removed it. */
  async findResult(taskId: string): Promise<string | null> {
    // Not the conversation beside it, which can be far larger.
    const found = await this.results.findById(taskId, { body: 1 }).lean<TaskResult>().exec();
    return found?.body ?? null;
  }

  /** A stored response's body and the conversation before it; null once retention has removed them. */
  async findConversation(taskId: string): Promise<{ body: string; conversation?: string } | null> {
    const found = await this.results.findById(taskId).lean<TaskResult>().exec();
    return found ? { body: found.body, conversation: found.conversation } : null;
  }

  /** An application's tasks over a range of creation days, most recently recorded first; optionally one filter's. */
  listForApp(appId: string, query: FeedQuery, filter?: TaskFilter): Promise<FeedSlice<TaskRecord>> {
    const [feed, key]: [FeedName, string] = filter ? taskFilterFeed(appId, filter) : ['tasks', appId];
    return this.feeds.list<TaskRecord>(feed, key, query, (row) =>
      reviveDates(row, 'createdAt', 'startedAt', 'finishedAt'),
    );
  }

  /** The tasks of every application of one account over a range of creation days, most recently recorded first. */
  listForOwner(ownerId: string, query: FeedQuery): Promise<FeedSlice<TaskRecord>> {
    return this.feeds.list<TaskRecord>('tasks-owner', ownerId, query, (row) =>
      reviveDates(row, 'createdAt', 'startedAt', 'finishedAt'),
    );
  }

  /** Deletes the result bodies filed under one feed page; returns how many. */
  async deleteResults(page: string): Promise<number> {
    const { deletedCount } = await this.results.deleteMany({ page }).exec();
    return deletedCount;
  }
}
