import { GatewayError, UTC_DAY_PATTERN, utcDay, utcDaysBefore } from '@gateway/common';
import { ConsoleApplicationsService, ConsoleSession } from '@gateway/tenancy';
import { Controller, Get, Param, Query, UseGuards } from '@nestjs/common';
import { CurrentSession } from '../auth/console-session.decorator';
import { ConsoleSessionGuard } from '../auth/console-session.guard';

const MAX_RANGE_DAYS = 366;

/** Usage series for the console's charts: calls, errors, tokens, images and cost per UTC day and model. */
@Controller('console/api/applications/:id/usage')
@UseGuards(ConsoleSessionGuard)
export class ConsoleUsageController {
  constructor(private readonly applications: ConsoleApplicationsService) {}

  @Get()
  series(@CurrentSession() session: ConsoleSession, @Param('id') id: string, @Query('from') from?: string, @Query('to') to?: string) {
    const until = to ?? utcDay();
    const since = from ?? utcDaysBefore(until, 29);
    for (const [param, value] of [['from', since], ['to', until]]) {
      if (!UTC_DAY_PATTERN.test(value) || Number.isNaN(Date.parse(value))) throw new GatewayError('InvalidParameter', `${param} must be a UTC day, YYYY-MM-DD`, { param });
    }
    const days = (Date.parse(until) - Date.parse(since)) / 86_400_000;
    if (days < 0 || days >= MAX_RANGE_DAYS) {
      throw new GatewayError('InvalidParameter', `from must not be after to, and the range is at most ${MAX_RANGE_DAYS} days`, { param: 'from' });
    }
    return this.applications.usageSeries(id, session.userId, since, until);
  }
}
