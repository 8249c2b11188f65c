import { CatalogService } from '@gateway/catalog';
import { formatNanos, GatewayError, utcDay } from '@gateway/common';
import {
  ApiKeysRepository,
  ApplicationRecord,
  ApplicationsRepository,
  BillingRecord,
  BillingRecordsRepository,
  FeedQuery,
  FeedSlice,
  InvalidCursorError,
  NewApplication,
  TaskFilter,
  TaskRecord,
  TasksRepository,
  UsageDailyRepository,
  UserCeilings,
  UsersRepository,
  WebhookDeliveriesRepository,
  WebhookDelivery,
} from '@gateway/db';
import { CallbackUrls } from '@gateway/outbound';
import { WebhookEventType, WebhookJobs } from '@gateway/webhooks';
import { Injectable } from '@nestjs/common';
import { AuditActor, auditedApplication, auditedKeys, AuditTrail, changedFields } from '../audit/audit-trail';
import { bodiesSettings } from '../bodies/body-settings';
import { CredentialsService } from '../credentials/credentials.service';
import { NamedApiKeys, presentKey } from '../credentials/named-api-keys';
import { budgetPeriodEnd, budgetView } from '../limits/budget';
import { LimitsService } from '../limits/limits.service';

export type ApplicationSettings = Omit<NewApplication, '_id' | 'secretKeyEnc' | 'ownerId'>;

/** The console's applications: every operation scoped to the signed-in owner; another user's id reads as absent (404). */
@Injectable()
export class ConsoleApplicationsService {
  constructor(
    private readonly applications: ApplicationsRepository,
    private readonly apiKeys: ApiKeysRepository,
    private readonly credentials: CredentialsService,
    private readonly usage: UsageDailyRepository,
    private readonly catalog: CatalogService,
    private readonly callbackUrls: CallbackUrls,
    private readonly deliveries: WebhookDeliveriesRepository,
    private readonly webhookJobs: WebhookJobs,
    private readonly tasksRepository: TasksRepository,
    private readonly billing: BillingRecordsRepository,
    private readonly users: UsersRepository,
    private readonly audit: AuditTrail,
    private readonly limits: LimitsService,
    private readonly namedKeys: NamedApiKeys,
  ) {}

  /**
   * The owner's applications, each with today's calls (from the usage roll-ups, a few seconds behind). Deleted ones
   * (revoked, kept as a record) only when asked for.
   */
  async list(ownerId: string, includeRevoked = false) {
    const apps = (await this.applications.list(ownerId)).filter((app) => includeRevoked || app.status !== 'revoked');
    const today = utcDay();
    return Promise.all(
      apps.map(async (app) => {
        const [presented, usage] = await Promise.all([this.present(app), this.usage.listForApp(app._id, today, today)]);
        return { ...presented, calls_today: usage.reduce((sum, day) => sum + day.calls, 0) };
      }),
    );
  }

  async get(appId: string, ownerId: string) {
    return this.present(await this.owned(appId, ownerId));
  }

  async create(ownerId: string, settings: ApplicationSettings, actor: AuditActor) {
    this.checkModels(settings.scope?.models ?? []);
    const ceilings = (await this.users.findById(ownerId))?.ceilings;
    if (ceilings?.maxApplications !== undefined) {
      const active = (await this.applications.list(ownerId)).filter((app) => app.status === 'active').length;
      if (active >= ceilings.maxApplications) {
        throw new GatewayError(
          'CeilingExceeded',
          `your account may have at most ${ceilings.maxApplications} applications; ask the gateway's operator for more`,
        );
      }
    }
    // Under a ceiling, an unset limit is the ceiling rather than unlimited.
    const limited = {
      ...settings,
      dailyCallLimit: settings.dailyCallLimit ?? ceilings?.maxDailyCallLimit,
      tokenQuota: settings.tokenQuota ?? ceilings?.maxTokenQuota,
    };
    checkCeilings(ceilings, limited);
    const issued = await this.credentials.createApplication({ ...limited, ownerId });
    await this.audit.record(actor, {
      action: 'application.create',
      appId: issued.appId,
      ownerId,
      changes: {
        ...changedFields(null, auditedApplication(issued.application)),
        api_keys: { before: [], after: auditedKeys(await this.apiKeys.listForApp(issued.appId)) },
      },
    });
    return {
      ...(await this.present(issued.application)),
      // Shown once: only hashes and ciphertexts are kept.
      credentials: { app_id: issued.appId, api_key: issued.apiKey, secret_key: issued.secretKey },
    };
  }

  async update(appId: string, ownerId: string, changes: Partial<ApplicationSettings>, actor: AuditActor) {
    this.checkModels(changes.scope?.models ?? []);
    const before = await this.changeable(appId, ownerId);
    if (changes.dailyCallLimit !== undefined || changes.tokenQuota !== undefined) {
      checkCeilings((await this.users.findById(ownerId))?.ceilings, changes);
    }
    await this.callbackUrls.check(changes.callbackUrl);
    // Saving the callback URL again, even unchanged, re-enables a callback a 410 disabled.
    const app = await this.applications.updateOwned(
      appId,
      ownerId,
      changes.callbackUrl !== undefined ? { ...changes, callbackDisabledAt: null } : changes,
    );
    if (!app) throw notFound(appId);
    await this.audit.record(actor, {
      action: 'application.update',
      appId,
      ownerId,
      changes: changedFields(auditedApplication(before), auditedApplication(app)),
    });
    return this.present(app);
  }

  async revoke(appId: string, ownerId: string, actor: AuditActor) {
    const before = await this.owned(appId, ownerId);
    const keysBefore = auditedKeys(await this.apiKeys.listForApp(appId));
    const app = await this.applications.updateOwned(appId, ownerId, { status: 'revoked' });
    if (!app) throw notFound(appId);
    await this.apiKeys.revokeAll(appId);
    await this.audit.record(actor, {
      action: 'application.delete',
      appId,
      ownerId,
      changes: {
        ...changedFields(auditedApplication(before), auditedApplication(app)),
        api_keys: { before: keysBefore, after: auditedKeys(await this.apiKeys.listForApp(appId)) },
      },
    });
    return this.present(app);
  }

  /** Rotates every live key of the application, or only `keyId` (docs/contracts.md, named keys and rotation). */
  async rotateApiKey(appId: string, ownerId: string, graceSeconds: number, actor: AuditActor, keyId?: string) {
    await this.changeable(appId, ownerId);
    const key = keyId === undefined ? undefined : await this.namedKeys.live(appId, keyId);
    const keysBefore = auditedKeys(await this.apiKeys.listForApp(appId));
    const apiKey = await this.credentials.rotateApiKey(appId, graceSeconds * 1000, key);
    await this.audit.record(actor, {
      action: 'key.rotate',
      appId,
      ownerId,
      changes: { api_keys: { before: keysBefore, after: auditedKeys(await this.apiKeys.listForApp(appId)) } },
    });
    return { app_id: appId, api_key: apiKey, previous_key_valid_for_seconds: graceSeconds };
  }

  /** The application's keys, revoked and expired ones included, oldest first. */
  async listKeys(appId: string, ownerId: string) {
    await this.owned(appId, ownerId);
    return { app_id: appId, data: await this.namedKeys.list(appId) };
  }

  /** Another named key, with an optional expiry; the key itself is in this answer only. */
  async createKey(appId: string, ownerId: string, input: { name: string; expiresAt?: Date }, actor: AuditActor) {
    const app = await this.owned(appId, ownerId);
    if (app.status !== 'active') throw new GatewayError('NotFound', `application ${appId} is revoked`, { param: 'id' });
    return this.namedKeys.create({ appId, ownerId }, input, actor);
  }

  /** Revokes one key; the others keep working. */
  async revokeKey(appId: string, ownerId: string, keyId: string, actor: AuditActor) {
    await this.owned(appId, ownerId);
    return this.namedKeys.revoke({ appId, ownerId }, keyId, actor);
  }

  async resetSecretKey(appId: string, ownerId: string, actor: AuditActor) {
    await this.changeable(appId, ownerId);
    const secretKey = await this.credentials.resetSecretKey(appId, ownerId);
    if (!secretKey) throw notFound(appId);
    // Neither Secret Key is named, sealed or not: only that one replaced the other.
    await this.audit.record(actor, {
      action: 'secret.reset',
      appId,
      ownerId,
      changes: { secret_key: { before: 'previous', after: 'new' } },
    });
    return { app_id: appId, secret_key: secretKey };
  }

  /**
   * The application's budget and its owner's, each with what was spent in its current period (tasks in flight
   * counted at their worst-case cost until they settle), read from the admission counters.
   */
  async budget(appId: string, ownerId: string) {
    const app = await this.owned(appId, ownerId);
    const ownerBudget = (await this.users.findById(ownerId))?.ceilings?.budget;
    const spending = await this.limits.budgetSpent({
      appId,
      ...(app.budget?.amountNanos ? { budget: app.budget } : {}),
      ...(ownerBudget?.amountNanos ? { ownerBudget: { userId: ownerId, budget: ownerBudget } } : {}),
    });
    const now = new Date();
    return {
      app_id: appId,
      currency: this.catalog.currency,
      data: spending.map((budget) => ({
        scope: budget.scope,
        period: budget.period,
        period_id: budget.periodId,
        amount: formatNanos(budget.amountNanos),
        spent: formatNanos(budget.spentNanos),
        resets_at: new Date(budgetPeriodEnd(budget.period, now)).toISOString(),
      })),
    };
  }

  /** Delivery attempts of the application's webhooks, newest first. */
  async webhookDeliveries(appId: string, ownerId: string, query: FeedQuery) {
    const since = fromCreation(await this.owned(appId, ownerId), query);
    return present(appId, await listing(() => this.deliveries.listForApp(appId, since)), presentDelivery);
  }

  /**
   * The application's finished tasks, most recently finished first, optionally one filter's (TaskFilter); result
   * bodies are fetched per task by the API.
   */
  async tasks(appId: string, ownerId: string, query: FeedQuery, filter?: TaskFilter) {
    const since = fromCreation(await this.owned(appId, ownerId), query);
    return present(appId, await listing(() => this.tasksRepository.listForApp(appId, since, filter)), presentTask);
  }

  /**
   * The tasks of every application of the account, most recently recorded first, over a day range (filters are per
   * application): the account's own feed, filed by the worker from the owner the task was made under.
   */
  async accountTasks(ownerId: string, query: FeedQuery) {
    const slice = await listing(() => this.tasksRepository.listForOwner(ownerId, query));
    return { data: slice.data.map((task) => ({ app_id: task.appId, ...presentTask(task) })), next: slice.next };
  }

  /** The application's per-image billing records, most recently billed first. */
  async billingRecords(appId: string, ownerId: string, query: FeedQuery) {
    const since = fromCreation(await this.owned(appId, ownerId), query);
    return present(appId, await listing(() => this.billing.listForApp(appId, since)), presentBillingRecord);
  }

  /** Sends a delivered or failed event once more (one attempt), even to a callback a 410 disabled. */
  async redeliver(appId: string, ownerId: string, deliveryId: string) {
    await this.owned(appId, ownerId);
    const delivery = await this.deliveries.findForApp(deliveryId, appId);
    if (!delivery)
      throw new GatewayError('NotFound', `no webhook delivery ${deliveryId} for this application`, {
        param: 'delivery_id',
      });
    if (delivery.event.startsWith('budget.'))
      throw new GatewayError('InvalidParameter', 'a budget event is sent once per period and is not sent again', {
        param: 'delivery_id',
      });
    await this.webhookJobs.redeliver(appId, delivery.taskId, delivery.event as WebhookEventType);
    return { app_id: appId, task_id: delivery.taskId, event: delivery.event, status: 'queued' };
  }

  /** An owned application that may still change: a deleted (revoked) one is a record only, 409 ApplicationRevoked. */
  private async changeable(appId: string, ownerId: string): Promise<ApplicationRecord> {
    const app = await this.owned(appId, ownerId);
    if (app.status === 'revoked')
      throw new GatewayError(
        'ApplicationRevoked',
        `application ${appId} is deleted; its settings and keys can no longer change`,
      );
    return app;
  }

  private async owned(appId: string, ownerId: string): Promise<ApplicationRecord> {
    const app = await this.applications.findOwned(appId, ownerId);
    if (!app) throw notFound(appId);
    return app;
  }

  private checkModels(models: string[]): void {
    models.forEach((id, index) => {
      if (!this.catalog.find(id))
        throw new GatewayError('ModelNotFound', `model "${id}" is not in the catalog`, {
          param: `scope.models[${index}]`,
        });
    });
  }

  private async present(app: ApplicationRecord) {
    const keys = await this.apiKeys.listForApp(app._id);
    return {
      id: app._id,
      name: app.name,
      description: app.description,
      type: app.type,
      usage_scenario: app.usageScenario,
      expected_volume: app.expectedVolume,
      scope: { capabilities: app.scope.capabilities, models: app.scope.models },
      daily_call_limit: app.dailyCallLimit,
      concurrency_limit: app.concurrencyLimit,
      requests_per_minute: app.requestsPerMinute,
      token_quota: app.tokenQuota,
      budget: budgetView(app.budget),
      ip_whitelist: app.ipWhitelist,
      callback_url: app.callbackUrl || null,
      callback_disabled_at: app.callbackDisabledAt ? new Date(app.callbackDisabledAt).toISOString() : null,
      ...bodiesSettings(app),
      status: app.status,
      created_at: new Date(app.createdAt).toISOString(),
      updated_at: new Date(app.updatedAt).toISOString(),
      api_keys: keys.map(presentKey),
    };
  }
}

function notFound(appId: string): GatewayError {
  return new GatewayError('NotFound', `no application ${appId} in your account`, { param: 'id' });
}

/** A daily call limit or token quota above the owner's ceiling, or unlimited (0) under one, is refused. */
function checkCeilings(
  ceilings: UserCeilings | undefined,
  settings: Partial<Pick<ApplicationSettings, 'dailyCallLimit' | 'tokenQuota'>>,
): void {
  const checks = [
    ['daily_call_limit', settings.dailyCallLimit, ceilings?.maxDailyCallLimit],
    ['token_quota', settings.tokenQuota, ceilings?.maxTokenQuota],
  ] as const;
  for (const [param, value, ceiling] of checks) {
    if (ceiling === undefined || value === undefined) continue;
    if (value === 0 || value > ceiling) {
      throw new GatewayError(
        'CeilingExceeded',
        `${param} must be from 1 to ${ceiling}, the ceiling the gateway's operator set for your account`,
        { param },
      );
    }
  }
}

/** Nothing of an application predates it: a listing need not look at the days before its creation. */
function fromCreation(app: ApplicationRecord, query: FeedQuery): FeedQuery {
  const created = utcDay(app.createdAt);
  return created > query.from ? { ...query, from: created > query.to ? query.to : created } : query;
}

async function listing<T>(list: () => Promise<FeedSlice<T>>): Promise<FeedSlice<T>> {
  try {
    return await list();
  } catch (error) {
    if (error instanceof InvalidCursorError)
      throw new GatewayError('InvalidParameter', error.message, { param: 'cursor' });
    throw error;
  }
}

function present<T>(appId: string, slice: FeedSlice<T>, view: (record: T) => Record<string, unknown>) {
  return { app_id: appId, data: slice.data.map(view), next: slice.next };
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

function presentDelivery(delivery: WebhookDelivery) {
  return {
    id: delivery._id,
    task_id: delivery.taskId,
    event: delivery.event,
    webhook_id: delivery.webhookId,
    url: delivery.url,
    attempt: delivery.attempt,
    redelivery: delivery.redelivery,
    outcome: delivery.outcome,
    http_status: delivery.httpStatus ?? null,
    error: delivery.error ?? null,
    duration_ms: delivery.durationMs,
    response: delivery.responseSnippet ?? null,
    attempts: delivery.attempts ?? null,
    next_attempt_at: delivery.nextAttemptAt ? new Date(delivery.nextAttemptAt).toISOString() : null,
    created_at: new Date(delivery.createdAt).toISOString(),
  };
}
