import type { FastifyRequest } from 'fastify';
import { priceToNanos } from '@gateway/common';
import type { BudgetPeriod } from '@gateway/contracts';
import type { CeilingChanges, MoneyBudget } from '@gateway/db';
import { QueueOverview } from '@gateway/queue';
import { ConsoleSession, consoleActor } from '@gateway/tenancy';
import { ConsoleOperatorsService } from './console-operators.service';
import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query, Req, UseGuards } from '@nestjs/common';
import { ConsoleSessionGuard, CurrentSession } from '../auth/console-session.guard';
import { OperatorGuard } from '../auth/operator.guard';
import { dayRange } from '../listing-query';
import {
  ApplicationPageQuery,
  CeilingsDto,
  FailedJobsQuery,
  InviteDto,
  UpdateAccountDto,
  UsageRangeQuery,
} from './operator.dto';

const DEFAULT_INVITATION_HOURS = 72;
const DEFAULT_PAGE_SIZE = 50;

@Controller('console/api/admin')
@UseGuards(ConsoleSessionGuard, OperatorGuard)
export class ConsoleOperatorsController {
  constructor(
    private readonly operators: ConsoleOperatorsService,
    private readonly queues: QueueOverview,
  ) {}

  @Get('users')
  users() {
    return this.operators.listUsers();
  }

  /** Disable or enable an account, change its role, set its ceilings (null lifts one). */
  @Patch('users/:id')
  updateUser(
    @CurrentSession() session: ConsoleSession,
    @Param('id') id: string,
    @Body() dto: UpdateAccountDto,
    @Req() request: FastifyRequest,
  ) {
    return this.operators.updateUser(
      session.userId,
      id,
      { disabled: dto.disabled, role: dto.role, ceilings: dto.ceilings && ceilingChanges(dto.ceilings) },
      consoleActor(session, request.ip),
    );
  }

  /** Every account's applications with their owner, a page at a time (`next` is the `cursor` of the next page). */
  @Get('applications')
  applications(@Query() query: ApplicationPageQuery) {
    return this.operators.listApplications(query.cursor, query.limit ?? DEFAULT_PAGE_SIZE);
  }

  /** An account's usage over a range of UTC days (default the last 30), in total and per application. */
  @Get('users/:id/usage')
  userUsage(@Param('id') id: string, @Query() query: UsageRangeQuery) {
    const { from, to } = dayRange(query.from, query.to);
    return this.operators.userUsage(id, from, to);
  }

  /** CONSOLE_SIGNUP: who may create an account. */
  @Get('signup-policy')
  signupPolicy() {
    return this.operators.signupPolicy();
  }

  /** The unused invitations (expired ones too, marked), newest first. */
  @Get('invitations')
  invitations() {
    return this.operators.listInvitations();
  }

  @Delete('invitations/:id')
  revokeInvitation(@Param('id') id: string) {
    return this.operators.revokeInvitation(id);
  }

  /** Every queue's waiting, active, delayed and failed jobs, and the workers connected to it. */
  @Get('system/queues')
  async queueStates() {
    return { data: await this.queues.states() };
  }

  @Get('system/queues/:queue/failed')
  async failedJobs(@Param('queue') queue: string, @Query() query: FailedJobsQuery) {
    return { data: await this.queues.failed(queue, query.limit ?? 20) };
  }

  @Post('system/queues/:queue/jobs/:id/retry')
  @HttpCode(202)
  async retry(@Param('queue') queue: string, @Param('id') id: string) {
    await this.queues.retry(queue, id);
    return { queue, job_id: id, status: 'retrying' };
  }

  /** A single-use sign-up invitation; its token is shown only in this answer. */
  @Post('invitations')
  invite(@CurrentSession() session: ConsoleSession, @Body() dto: InviteDto) {
    return this.operators.invite(session.userId, dto.email, dto.expires_in_hours ?? DEFAULT_INVITATION_HOURS);
  }
}

/** The stored name of each ceiling the API takes. */
const CEILING_NAMES = {
  max_applications: 'maxApplications',
  max_daily_call_limit: 'maxDailyCallLimit',
  max_token_quota: 'maxTokenQuota',
} as const satisfies Record<string, keyof CeilingChanges>;

/** The ceilings sent, by stored name: a number sets one, null lifts it, one not sent is left as it is. */
function ceilingChanges(dto: CeilingsDto): CeilingChanges {
  const changes: Record<string, number | null> = {};
  for (const [wire, name] of Object.entries(CEILING_NAMES)) {
    const value = dto[wire as keyof typeof CEILING_NAMES];
    if (value !== undefined) changes[name] = value;
  }
  const budget = budgetCeiling(dto.budget_amount, dto.budget_period);
  return budget === undefined ? changes : { ...changes, budget };
}

/** The budget sent, as stored (exact nanos): an empty or zero amount lifts it (null), none sent leaves it. */
function budgetCeiling(
  amount: string | null | undefined,
  period: BudgetPeriod | undefined,
): MoneyBudget | null | undefined {
  if (amount === undefined) return undefined;
  const amountNanos = amount ? priceToNanos(amount, 'ceilings.budget_amount') : 0;
  return amountNanos > 0 ? { amountNanos, period: period ?? 'month' } : null;
}
