import { ConsoleSession } from '@gateway/tenancy';
import { ConsoleUsageService } from './console-usage.service';
import { Controller, Get, Param, Query, Res, UseGuards } from '@nestjs/common';
import { FastifyReply } from 'fastify';
import { ConsoleSessionGuard, CurrentSession } from '../auth/console-session.guard';
import { dayRange } from '../listing-query';
import { sendCsv } from './csv-reply';

/**
 * Usage series for the console's charts: calls, errors, tokens in and out, images, cost and latency per UTC day and
 * model, with totals; and the same as CSV.
 */
@Controller('console/api/applications/:id/usage')
@UseGuards(ConsoleSessionGuard)
export class ConsoleUsageController {
  constructor(private readonly usage: ConsoleUsageService) {}

  @Get()
  series(
    @CurrentSession() session: ConsoleSession,
    @Param('id') id: string,
    @Query('from') from?: string,
    @Query('to') to?: string,
  ) {
    const range = dayRange(from, to);
    return this.usage.series(id, session.userId, range.from, range.to);
  }

  @Get('export')
  async export(
    @CurrentSession() session: ConsoleSession,
    @Res({ passthrough: true }) reply: FastifyReply,
    @Param('id') id: string,
    @Query('from') from?: string,
    @Query('to') to?: string,
  ): Promise<string> {
    const range = dayRange(from, to);
    const csv = await this.usage.applicationCsv(id, session.userId, range.from, range.to);
    return sendCsv(reply, `usage-${id}-${range.from}-${range.to}.csv`, csv);
  }
}
