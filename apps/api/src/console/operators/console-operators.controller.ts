import { priceToNanos } from '@gateway/common';
import type { BudgetPeriod } from '@gateway/contracts';
import type { MoneyBudget } from '@gateway/db';
import { QueueOverview } from '@gateway/queue';
import { ConsoleOperatorsService, ConsoleSession, consoleActor } from '@gateway/tenancy';
import { Body, Controller, Get, HttpCode, Param, Patch, Post, Query, Req, UseGuards } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { CurrentSession } from '../auth/console-session.decorator';
import { ConsoleSessionGuard } from '../auth/console-session.guard';
import { OperatorGuard } from '../auth/operator.guard';
import { FailedJobsQuery, InviteDto, UpdateAccountDto } from './operator.dto';

const DEFAULT_INVITATION_HOURS = 72;

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
    const ceilings = dto.ceilings && {
      ...ceiling('maxApplications', dto.ceilings.max_applications),
      ...ceiling('maxDailyCallLimit', dto.ceilings.max_daily_call_limit),
      ...ceiling('maxTokenQuota', dto.ceilings.max_token_quota),
      ...budgetCeiling(dto.ceilings.budget_amount, dto.ceilings.budget_period),
    };
    return this.operators.updateUser(
      session.userId,
      id,
      { disabled: dto.disabled, role: dto.role, ceilings },
      consoleActor(session, request.ip),
    );
  }

  @Get('applications')
  applications() {
    return this.operators.listApplications();
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

/** The owner's budget as stored (exact nanos), or nothing for a missing, empty or zero amount. */
function budgetCeiling(amount: string | null | undefined, period: BudgetPeriod | undefined): { budget?: MoneyBudget } {
  const amountNanos = amount ? priceToNanos(amount, 'ceilings.budget_amount') : 0;
  return amountNanos > 0 ? { budget: { amountNanos, period: period ?? 'month' } } : {};
}

function ceiling(name: string, value: number | null | undefined): Record<string, number> {
  return typeof value === 'number' ? { [name]: value } : {};
}
