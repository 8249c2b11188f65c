import { ConsoleSession } from '@gateway/tenancy';
import { ConsoleUsageService } from './console-usage.service';
import { Controller, Get, Query, Res, UseGuards } from '@nestjs/common';
import { FastifyReply } from 'fastify';
import { ConsoleSessionGuard, CurrentSession } from '../auth/console-session.guard';
import { dayRange } from '../listing-query';
import { sendCsv } from './csv-reply';

/** The account-wide dashboard: usage of every application of the signed-in account, and the same as CSV. */
@Controller('console/api/usage')
@UseGuards(ConsoleSessionGuard)
export class ConsoleAccountUsageController {
  constructor(private readonly usage: ConsoleUsageService) {}

  @Get()
  account(@CurrentSession() session: ConsoleSession, @Query('from') from?: string, @Query('to') to?: string) {
    const range = dayRange(from, to);
    return this.usage.account(session.userId, range.from, range.to);
  }

  @Get('export')
  async export(
    @CurrentSession() session: ConsoleSession,
    @Res({ passthrough: true }) reply: FastifyReply,
    @Query('from') from?: string,
    @Query('to') to?: string,
  ): Promise<string> {
    const range = dayRange(from, to);
    const csv = await this.usage.accountCsv(session.userId, range.from, range.to);
    return sendCsv(reply, `usage-${range.from}-${range.to}.csv`, csv);
  }
}
