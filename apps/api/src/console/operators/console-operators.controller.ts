import { ConsoleOperatorsService, ConsoleSession } from '@gateway/tenancy';
import { Body, Controller, Get, Param, Patch, Post, UseGuards } from '@nestjs/common';
import { CurrentSession } from '../auth/console-session.decorator';
import { ConsoleSessionGuard } from '../auth/console-session.guard';
import { OperatorGuard } from '../auth/operator.guard';
import { InviteDto, UpdateAccountDto } from './operator.dto';

const DEFAULT_INVITATION_HOURS = 72;

@Controller('console/api/admin')
@UseGuards(ConsoleSessionGuard, OperatorGuard)
export class ConsoleOperatorsController {
  constructor(private readonly operators: ConsoleOperatorsService) {}

  @Get('users')
  users() {
    return this.operators.listUsers();
  }

  /** Disable or enable an account, change its role, set its ceilings (null lifts one). */
  @Patch('users/:id')
  updateUser(@CurrentSession() session: ConsoleSession, @Param('id') id: string, @Body() dto: UpdateAccountDto) {
    const ceilings = dto.ceilings && {
      ...ceiling('maxApplications', dto.ceilings.max_applications),
      ...ceiling('maxDailyCallLimit', dto.ceilings.max_daily_call_limit),
      ...ceiling('maxTokenQuota', dto.ceilings.max_token_quota),
    };
    return this.operators.updateUser(session.userId, id, { disabled: dto.disabled, role: dto.role, ceilings });
  }

  @Get('applications')
  applications() {
    return this.operators.listApplications();
  }

  /** A single-use sign-up invitation; its token is shown only in this answer. */
  @Post('invitations')
  invite(@CurrentSession() session: ConsoleSession, @Body() dto: InviteDto) {
    return this.operators.invite(session.userId, dto.email, dto.expires_in_hours ?? DEFAULT_INVITATION_HOURS);
  }
}

function ceiling(name: string, value: number | null | undefined): Record<string, number> {
  return typeof value === 'number' ? { [name]: value } : {};
}
