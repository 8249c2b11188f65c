import { GatewayError, priceToNanos } from '@gateway/common';
import type { MoneyBudget } from '@gateway/db';
import { ConsoleSession, consoleActor } from '@gateway/tenancy';
import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query, Req, UseGuards } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { ConsoleSessionGuard, CurrentSession } from '../auth/console-session.guard';
import { listingQuery } from '../listing-query';
import { ApplicationKeys } from '../keys/application-keys.service';
import { taskFilter } from '../requests/request-filters';
import { TaskFeeds } from '../requests/task-feeds.service';
import { WebhookDeliveries } from '../webhooks/webhook-deliveries.service';
import { ApplicationBudget } from './application-budget.service';
import { ApplicationChanges } from './application-changes.service';
import { ApplicationCreation } from './application-creation.service';
import { ApplicationListing } from './application-listing.service';
import { ApplicationSettings } from './application-view';
import {
  ApplicationListQuery,
  CreateApiKeyDto,
  CreateApplicationDto,
  RotateKeyDto,
  UpdateApplicationDto,
} from './application.dto';

@Controller('console/api/applications')
@UseGuards(ConsoleSessionGuard)
export class ConsoleApplicationsController {
  constructor(
    private readonly listing: ApplicationListing,
    private readonly creation: ApplicationCreation,
    private readonly changes: ApplicationChanges,
    private readonly applicationKeys: ApplicationKeys,
    private readonly budgets: ApplicationBudget,
    private readonly webhookDeliveries: WebhookDeliveries,
    private readonly taskFeeds: TaskFeeds,
  ) {}

  /** The account's applications; deleted (revoked) ones only with `status=all`. */
  @Get()
  async list(@CurrentSession() session: ConsoleSession, @Query() query: ApplicationListQuery) {
    return { data: await this.listing.list(session.userId, query.status === 'all') };
  }

  @Post()
  create(@CurrentSession() session: ConsoleSession, @Body() dto: CreateApplicationDto, @Req() request: FastifyRequest) {
    return this.creation.create(
      session.userId,
      { name: dto.name, ...toSettings(dto) } as ApplicationSettings,
      consoleActor(session, request.ip),
    );
  }

  @Get(':id')
  get(@CurrentSession() session: ConsoleSession, @Param('id') id: string) {
    return this.listing.get(id, session.userId);
  }

  @Patch(':id')
  update(
    @CurrentSession() session: ConsoleSession,
    @Param('id') id: string,
    @Body() dto: UpdateApplicationDto,
    @Req() request: FastifyRequest,
  ) {
    return this.changes.update(
      id,
      session.userId,
      { ...(dto.name !== undefined ? { name: dto.name } : {}), ...toSettings(dto) },
      consoleActor(session, request.ip),
    );
  }

  /** Revokes the application and its keys. */
  @Delete(':id')
  revoke(@CurrentSession() session: ConsoleSession, @Param('id') id: string, @Req() request: FastifyRequest) {
    return this.changes.revoke(id, session.userId, consoleActor(session, request.ip));
  }

  @Post(':id/rotate-key')
  @HttpCode(200)
  rotate(
    @CurrentSession() session: ConsoleSession,
    @Param('id') id: string,
    @Body() dto: RotateKeyDto,
    @Req() request: FastifyRequest,
  ) {
    return this.applicationKeys.rotate(
      id,
      session.userId,
      dto.grace_seconds ?? 0,
      consoleActor(session, request.ip),
      dto.key_id,
    );
  }

  /** The application's API keys, revoked and expired ones included. */
  @Get(':id/keys')
  keys(@CurrentSession() session: ConsoleSession, @Param('id') id: string) {
    return this.applicationKeys.list(id, session.userId);
  }

  /** Another named key; the key itself is in this answer only. */
  @Post(':id/keys')
  createKey(
    @CurrentSession() session: ConsoleSession,
    @Param('id') id: string,
    @Body() dto: CreateApiKeyDto,
    @Req() request: FastifyRequest,
  ) {
    const expiresAt = dto.expires_at === undefined ? undefined : new Date(dto.expires_at);
    return this.applicationKeys.create(
      id,
      session.userId,
      { name: dto.name, expiresAt },
      consoleActor(session, request.ip),
    );
  }

  /** Revokes one key; the application's other keys keep working. */
  @Delete(':id/keys/:keyId')
  revokeKey(
    @CurrentSession() session: ConsoleSession,
    @Param('id') id: string,
    @Param('keyId') keyId: string,
    @Req() request: FastifyRequest,
  ) {
    return this.applicationKeys.revoke(id, session.userId, keyId, consoleActor(session, request.ip));
  }

  /** The application's budget and its owner's, with what each spent in its current period. */
  @Get(':id/budget')
  budget(@CurrentSession() session: ConsoleSession, @Param('id') id: string) {
    return this.budgets.spending(id, session.userId);
  }

  /** Webhook delivery attempts, newest first: `from`/`to` (UTC days), `limit`, and `cursor` = the previous page's `next`. */
  @Get(':id/webhooks')
  webhooks(@CurrentSession() session: ConsoleSession, @Param('id') id: string, @Query() query: Record<string, string>) {
    return this.webhookDeliveries.list(id, session.userId, listingQuery(query));
  }

  /**
   * Finished tasks, most recently finished first; same paging as the webhook attempts, and one of the filters `model`,
   * `status`, `code`, `key_id` or `mode` at a time.
   */
  @Get(':id/tasks')
  tasks(@CurrentSession() session: ConsoleSession, @Param('id') id: string, @Query() query: Record<string, string>) {
    return this.taskFeeds.forApplication(id, session.userId, listingQuery(query), taskFilter(query));
  }

  /** Per-image billing records, most recently billed first; same paging as the webhook attempts. */
  @Get(':id/billing')
  billing(@CurrentSession() session: ConsoleSession, @Param('id') id: string, @Query() query: Record<string, string>) {
    return this.taskFeeds.billingRecords(id, session.userId, listingQuery(query));
  }

  @Post(':id/webhooks/:deliveryId/redeliver')
  @HttpCode(202)
  redeliver(
    @CurrentSession() session: ConsoleSession,
    @Param('id') id: string,
    @Param('deliveryId') deliveryId: string,
  ) {
    return this.webhookDeliveries.redeliver(id, session.userId, deliveryId);
  }

  @Post(':id/reset-secret')
  @HttpCode(200)
  resetSecret(@CurrentSession() session: ConsoleSession, @Param('id') id: string, @Req() request: FastifyRequest) {
    return this.applicationKeys.resetSecretKey(id, session.userId, consoleActor(session, request.ip));
  }
}

/** The budget as stored: exact nanos, or null for "" and "0" (none); undefined when the request leaves it alone. */
function budgetOf(dto: CreateApplicationDto | UpdateApplicationDto): MoneyBudget | null | undefined {
  if (dto.budget_amount === undefined) {
    if (dto.budget_period !== undefined)
      throw new GatewayError('InvalidParameter', 'budget_period is set together with budget_amount', {
        param: 'budget_amount',
      });
    return undefined;
  }
  const amountNanos = priceToNanos(dto.budget_amount || '0', 'budget_amount');
  return amountNanos > 0 ? { amountNanos, period: dto.budget_period ?? 'month' } : null;
}

/** Only the fields the request set, in the repository's names. */
function toSettings(dto: CreateApplicationDto | UpdateApplicationDto): Partial<ApplicationSettings> {
  const settings: Partial<ApplicationSettings> = {
    description: dto.description,
    type: dto.type,
    usageScenario: dto.usage_scenario,
    expectedVolume: dto.expected_volume,
    scope: dto.scope ? { capabilities: dto.scope.capabilities ?? [], models: dto.scope.models ?? [] } : undefined,
    dailyCallLimit: dto.daily_call_limit,
    concurrencyLimit: dto.concurrency_limit,
    requestsPerMinute: dto.requests_per_minute,
    tokenQuota: dto.token_quota,
    budget: budgetOf(dto),
    ipWhitelist: dto.ip_whitelist,
    callbackUrl: dto.callback_url,
    logBodies: dto.log_bodies,
    bodyRetentionDays: dto.body_retention_days,
  };
  return Object.fromEntries(Object.entries(settings).filter(([, value]) => value !== undefined));
}
