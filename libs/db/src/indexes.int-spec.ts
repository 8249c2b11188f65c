import { utcDay } from '@gateway/common';
import { getConnectionToken } from '@nestjs/mongoose';
import { TestingModule } from '@nestjs/testing';
import mongoose, { Connection } from 'mongoose';
import { ApiKeysRepository } from './api-keys/api-keys.repository';
import { ApplicationsRepository } from './applications/applications.repository';
import { AuditLogRepository } from './audit/audit-log.repository';
import { BillingRecordsRepository } from './billing-records/billing-records.repository';
import { FeedPages } from './feeds/feed-pages';
import { InvitationsRepository } from './invitations/invitations.repository';
import { SweepStateRepository } from './sweeps/sweep-state.repository';
import { TaskBodiesRepository } from './task-bodies/task-bodies.repository';
import { createDbTestModule } from '../../../test/helpers/db-test-module';
import { TasksRepository } from './tasks/tasks.repository';
import { UsageDailyRepository } from './usage-daily/usage-daily.repository';
import { UsersRepository } from './users/users.repository';
import { WebhookDeliveriesRepository } from './webhook-deliveries/webhook-deliveries.repository';

/**
 * Every read and delete the repositories send, and the index that serves it. The embedded database (FerretDB over
 * PostgreSQL with GIN twins) serves an equality filter on the leading field of an index, or on `_id`, and nothing
 * else; MongoDB serves the same filters by the same indexes. Keep this table in step with the repositories: the
 * second test fails on any query it does not list.
 */
const SERVED: { collection: string; field: string; index: Record<string, 1 | -1> | '_id'; by: string }[] = [
  {
    collection: 'tasks',
    field: '_id',
    index: '_id',
    by: 'TasksRepository.findById / findForApp (owner checked in code)',
  },
  { collection: 'task_results', field: '_id', index: '_id', by: 'TasksRepository.findResult / findConversation' },
  {
    collection: 'task_results',
    field: 'page',
    index: { page: 1 },
    by: 'TasksRepository.deleteResults (retention sweep)',
  },
  {
    collection: 'task_bodies',
    field: '_id',
    index: '_id',
    by: 'TaskBodiesRepository.findForApp (owner checked in code)',
  },
  {
    collection: 'task_bodies',
    field: 'expiresHour',
    index: { expiresHour: 1 },
    by: 'TaskBodiesRepository.deleteExpired (an expiry hour, a batch of ids at a time)',
  },
  {
    collection: 'billing_records',
    field: 'taskId',
    index: { taskId: 1, index: 1 },
    by: 'BillingRecordsRepository.listForTask',
  },
  { collection: 'usage_daily', field: '_id', index: '_id', by: 'UsageDailyRepository.fold / replace (upserts by _id)' },
  { collection: 'usage_daily', field: 'appMonth', index: { appMonth: 1 }, by: 'UsageDailyRepository.listForApp' },
  { collection: 'webhook_deliveries', field: '_id', index: '_id', by: 'WebhookDeliveriesRepository.findForApp' },
  {
    collection: 'webhook_deliveries',
    field: 'page',
    index: { page: 1 },
    by: 'WebhookDeliveriesRepository.deletePage (30-day prune)',
  },
  { collection: 'api_keys', field: 'hash', index: { hash: 1 }, by: 'ApiKeysRepository.findByHash' },
  {
    collection: 'api_keys',
    field: 'appId',
    index: { appId: 1 },
    by: 'ApiKeysRepository.listForApp / countLive / revokeAll / retire',
  },
  {
    collection: 'api_keys',
    field: '_id',
    index: '_id',
    by: 'ApiKeysRepository.findForApp / revoke (application checked in the filter)',
  },
  {
    collection: 'api_key_last_used',
    field: '_id',
    index: '_id',
    by: 'ApiKeysRepository.listForApp / recordLastUsed (one key each)',
  },
  { collection: 'users', field: 'email', index: { email: 1 }, by: 'UsersRepository.findByEmail' },
  { collection: 'users', field: '_id', index: '_id', by: 'UsersRepository.findById / update' },
  { collection: 'users', field: 'role', index: { role: 1 }, by: 'UsersRepository.listOperators / hasActiveOperator' },
  { collection: 'invitations', field: '_id', index: '_id', by: 'InvitationsRepository.findByHash / consume' },
  {
    collection: 'invitations',
    field: 'role',
    index: { role: 1 },
    by: 'InvitationsRepository.revokeOperatorSetups',
  },
  {
    collection: 'applications',
    field: '_id',
    index: '_id',
    by: 'ApplicationsRepository.findById / findOwned / updateOwned / replaceSealedSecretKeys',
  },
  { collection: 'applications', field: 'ownerId', index: { ownerId: 1 }, by: 'ApplicationsRepository.list(owner)' },
  { collection: 'feed_directory', field: '_id', index: '_id', by: "FeedPages (a day's last page: raise, sweep)" },
  { collection: 'feed_directory', field: 'month', index: { month: 1 }, by: 'FeedPages.list (the days of a month)' },
  {
    collection: 'feed_rows',
    field: 'page',
    index: { page: 1 },
    by: 'FeedPages.list / deleteRows: listings of tasks, billing and webhook deliveries',
  },
  { collection: 'sweep_state', field: '_id', index: '_id', by: 'SweepStateRepository' },
  { collection: 'audit_log', field: 'day', index: { day: 1 }, by: 'AuditLogRepository.listDay (gw audit)' },
];

/** Queries that read a whole small collection on purpose. */
const WHOLE_COLLECTION = new Set(['applications', 'users', 'invitations']);

describe('the index behind every repository query', () => {
  let module: TestingModule;
  const seen: { collection: string; method: string; filter: Record<string, unknown> }[] = [];

  beforeAll(async () => {
    module = await createDbTestModule();
    mongoose.set('debug', (collection: string, method: string, filter: unknown) => {
      if (
        [
          'find',
          'findOne',
          'deleteMany',
          'deleteOne',
          'updateOne',
          'updateMany',
          'findOneAndUpdate',
          'countDocuments',
        ].includes(method)
      ) {
        seen.push({ collection, method, filter: (filter ?? {}) as Record<string, unknown> });
      }
    });
  });

  afterAll(async () => {
    mongoose.set('debug', false);
    await module?.close();
  });

  it.each(SERVED.filter((row) => row.index !== '_id'))(
    '$collection by $field is served by a declared index ($by)',
    ({ collection, index }) => {
      const connection = module.get<Connection>(getConnectionToken());
      const model = Object.values(connection.models).find(
        (candidate) => candidate.collection.collectionName === collection,
      );
      expect(model).toBeDefined();
      const declared = model!.schema.indexes().map(([keys]) => keys);
      expect(declared).toContainEqual(index);
    },
  );

  it('sends only filters the table lists: equality on `_id` or on the leading field of an index', async () => {
    const day = utcDay();
    const users = module.get(UsersRepository);
    const apps = module.get(ApplicationsRepository);
    const keys = module.get(ApiKeysRepository);
    const tasks = module.get(TasksRepository);
    const billing = module.get(BillingRecordsRepository);
    const usage = module.get(UsageDailyRepository);
    const deliveries = module.get(WebhookDeliveriesRepository);
    const user = await users.create({ _id: 'usr_index', email: 'index@example.com', passwordHash: 'x' });
    await users.findByEmail('index@example.com');
    await users.findById(user!._id);
    await users.hasActiveOperator();
    await users.list();
    await users.update(user!._id, { ceilings: { maxApplications: 2 } });
    const invitations = module.get(InvitationsRepository);
    await invitations.create({ _id: 'hash', createdBy: user!._id, expiresAt: new Date() });
    await invitations.findByHash('hash');
    await invitations.list();
    await invitations.consume('hash');
    await invitations.revokeOperatorSetups();
    await apps.create({ _id: 'app_index', ownerId: 'usr_index', name: 'index', secretKeyEnc: 'x' } as never);
    await apps.findById('app_index');
    await apps.findOwned('app_index', 'usr_index');
    await apps.updateOwned('app_index', 'usr_index', { name: 'renamed' });
    await apps.list('usr_index');
    await keys.create({ _id: 'key_index', appId: 'app_index', hash: 'h', prefix: 'sk-' });
    await keys.findByHash('h');
    await keys.listForApp('app_index');
    await keys.findForApp('app_index', 'key_index');
    await keys.countLive('app_index');
    await keys.retire('app_index', new Date(Date.now() + 60_000), 'key_index');
    await keys.retire('app_index');
    await keys.revoke('app_index', 'key_index');
    await keys.recordLastUsed(new Map([['key_index', Date.now()]]));
    await keys.revokeAll('app_index');
    const task = {
      _id: 'task_index',
      appId: 'app_index',
      requestId: 'r',
      endpoint: '/v1/embeddings',
      model: 'm',
      resolvedModel: 'm',
      status: 'succeeded' as const,
      createdAt: new Date(),
      day,
      attempts: 1,
      costNanos: 0,
    };
    await tasks.record({ ...task, result: '{}' });
    await tasks.findForApp('task_index', 'app_index');
    await tasks.findResult('task_index');
    await tasks.findConversation('task_index');
    await tasks.listForApp('app_index', { from: day, to: day, limit: 10 });
    await module.get(FeedPages).sweepDay('tasks', 'app_index', day, (page) => tasks.deleteResults(page));
    const bodies = module.get(TaskBodiesRepository);
    const kept = { text: '{}', chars: 2, truncated: false };
    const expiresAt = new Date(Date.now() - 2 * 3_600_000);
    await bodies.insertEach([
      {
        _id: 'task_index',
        appId: 'app_index',
        request: kept,
        response: kept,
        createdAt: new Date(),
        expiresAt,
        expiresHour: expiresAt.toISOString().slice(0, 13),
      },
    ]);
    await bodies.findForApp('task_index', 'app_index');
    expect(await bodies.deleteExpired(new Date(), 3 * 3_600_000)).toBe(1);
    await billing.billImages([
      {
        taskId: 'task_index',
        index: 0,
        appId: 'app_index',
        model: 'm',
        unitPriceNanos: 1,
        currency: 'CNY',
        day,
        createdAt: new Date(),
      },
    ]);
    await billing.listForTask('task_index', 'app_index');
    await billing.listForApp('app_index', { from: day, to: day, limit: 10 });
    const counters = { calls: 1, errors: 0, promptTokens: 0, completionTokens: 0, images: 0, costNanos: 0 };
    await usage.fold('batch', [{ key: { appId: 'app_index', model: 'm', day }, counters }]);
    await usage.replace([{ key: { appId: 'app_index', model: 'm', day }, counters }]);
    await usage.listForApp('app_index', day, day);
    const delivery = await deliveries.record({
      appId: 'app_index',
      taskId: 'task_index',
      event: 'task.succeeded',
      webhookId: 'w',
      url: 'https://x.example',
      attempt: 1,
      redelivery: false,
      outcome: 'delivered',
      durationMs: 1,
    });
    await deliveries.findForApp(delivery._id, 'app_index');
    await deliveries.listForApp('app_index', { from: day, to: day, limit: 10 });
    await deliveries.deletePage(delivery.page);
    await module.get(SweepStateRepository).advance('index', day);
    await module.get(SweepStateRepository).through('index');
    await apps.listCreated();
    await apps.listSealedSecretKeys();
    await apps.replaceSealedSecretKeys([{ appId: 'app_index', from: 'x', to: 'y' }]);
    const audit = module.get(AuditLogRepository);
    await audit.record({
      action: 'application.update',
      actorId: 'usr_index',
      address: '127.0.0.1',
      appId: 'app_index',
      ownerId: 'usr_index',
      changes: { name: { before: 'index', after: 'renamed' } },
    });
    for (const scope of [{ all: true as const }, { appId: 'app_index' }, { ownerId: 'usr_index' }]) {
      await audit.list(scope, undefined, { from: day, to: day, limit: 10 });
      await audit.list(scope, 'application.update', { from: day, to: day, limit: 10 });
    }
    await audit.listDay(day);

    expect(seen.length).toBeGreaterThan(20);
    for (const { collection, method, filter } of seen) {
      const fields = Object.keys(filter);
      if (fields.length === 0 && WHOLE_COLLECTION.has(collection)) continue;
      const served = SERVED.filter((row) => row.collection === collection && fields.includes(row.field));
      expect({ collection, method, filter, served: served.length > 0 }).toEqual({
        collection,
        method,
        filter,
        served: true,
      });
      // An equality finds the rows: ranges, $in and the like are not pushed down to the embedded database's indexes,
      // so they may only narrow what an equality on an indexed field found (the body sweep's batch of ids).
      const isEquality = (field: string) => typeof filter[field] !== 'object' || filter[field] === null;
      expect({ collection, method, filter, byEquality: served.some((row) => isEquality(row.field)) }).toEqual({
        collection,
        method,
        filter,
        byEquality: true,
      });
    }
  });
});
