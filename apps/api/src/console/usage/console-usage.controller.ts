import { ConsoleApplicationsService, ConsoleSession } from '@gateway/tenancy';
import { Controller, Get, Param, Query, UseGuards } from '@nestjs/common';
import { CurrentSession } from '../auth/console-session.decorator';
import { ConsoleSessionGuard } from '../auth/console-session.guard';
import { dayRange } from '../listing-query';

/** Usage series for the console's charts: calls, errors, tokens, images and cost per UTC day and model, with totals. */
@Controller('console/api/applications/:id/usage')
@UseGuards(ConsoleSessionGuard)
export class ConsoleUsageController {
  constructor(private readonly applications: ConsoleApplicationsService) {}

  @Get()
  series(
    @CurrentSession() session: ConsoleSession,
    @Param('id') id: string,
    @Query('from') from?: string,
    @Query('to') to?: string,
  ) {
    const range = dayRange(from, to);
    return this.applications.usageSeries(id, session.userId, range.from, range.to);
  }
}
