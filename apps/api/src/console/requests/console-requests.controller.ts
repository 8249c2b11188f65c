import { GatewayError } from '@gateway/common';
import { ConsoleSession } from '@gateway/tenancy';
import { Controller, Get, Param, Query, Res, UseGuards } from '@nestjs/common';
import { FastifyReply } from 'fastify';
import { Readable } from 'node:stream';
import { ConsoleSessionGuard, CurrentSession } from '../auth/console-session.guard';
import { sendCsv } from '../usage/csv-reply';
import { listingQuery } from '../listing-query';
import { ConsoleRefusalsService, MAX_REFUSALS_PAGE } from './console-refusals.service';
import { ConsoleRequestsExportService } from './console-requests-export.service';
import { refusalFilter, requestsExport } from './request-filters';
import { TaskFeeds } from './task-feeds.service';

const DEFAULT_LIMIT = 50;

/**
 * The /v1 calls refused before the queue (400, 401 with a known caller, 403, 429, …), which have no task record:
 * per application, and across the account's applications. Calls that became tasks are listed by `…/tasks`.
 */
@Controller('console/api')
@UseGuards(ConsoleSessionGuard)
export class ConsoleRequestsController {
  constructor(
    private readonly refusals: ConsoleRefusalsService,
    private readonly exports: ConsoleRequestsExportService,
    private readonly taskFeeds: TaskFeeds,
  ) {}

  /** The tasks of every application of the account, newest first, over `from`..`to`; paged by `cursor`. */
  @Get('tasks')
  accountTasks(@CurrentSession() session: ConsoleSession, @Query() query: Record<string, string>) {
    return this.taskFeeds.forAccount(session.userId, listingQuery(query));
  }

  /** `limit` (1-200) and `offset`, newest first; filtered by any of `from`, `to`, `model`, `code`, `status`, `key_id`, `mode`. */
  @Get('applications/:id/refusals')
  forApplication(
    @CurrentSession() session: ConsoleSession,
    @Param('id') id: string,
    @Query() query: Record<string, string>,
  ) {
    return this.refusals.forApplication(
      id,
      session.userId,
      count(query.limit, 'limit', 1, DEFAULT_LIMIT),
      count(query.offset, 'offset', 0, 0),
      refusalFilter(query),
    );
  }

  /** The newest `limit` (1-200) of every application of the account together, filtered as per application. */
  @Get('refusals')
  forAccount(@CurrentSession() session: ConsoleSession, @Query() query: Record<string, string>) {
    return this.refusals.forAccount(
      session.userId,
      count(query.limit, 'limit', 1, DEFAULT_LIMIT),
      refusalFilter(query),
    );
  }

  /**
   * The application's calls as CSV, streamed: its tasks over `from`..`to` (one filter, as the tasks listing takes
   * it), then its refused calls under the same filter; `calls` = `all`, `tasks` or `refused`.
   */
  @Get('applications/:id/requests/export')
  async exportApplication(
    @CurrentSession() session: ConsoleSession,
    @Res({ passthrough: true }) reply: FastifyReply,
    @Param('id') id: string,
    @Query() query: Record<string, string>,
  ): Promise<Readable> {
    const request = requestsExport(query);
    const lines = await this.exports.forApplication(id, session.userId, request);
    return sendCsv(reply, `requests-${id}-${request.from}-${request.to}.csv`, lines);
  }

  /** The same for every application of the account, one after the other. */
  @Get('requests/export')
  async exportAccount(
    @CurrentSession() session: ConsoleSession,
    @Res({ passthrough: true }) reply: FastifyReply,
    @Query() query: Record<string, string>,
  ): Promise<Readable> {
    const request = requestsExport(query);
    const lines = await this.exports.forAccount(session.userId, request);
    return sendCsv(reply, `requests-${request.from}-${request.to}.csv`, lines);
  }
}

/** A whole-number query parameter from `min` to its largest, with a default. */
function count(value: string | undefined, param: string, min: number, fallback: number): number {
  if (value === undefined) return fallback;
  const max = param === 'limit' ? MAX_REFUSALS_PAGE : 1_000;
  const number = Number(value);
  if (!/^\d+$/.test(value) || number < min || number > max)
    throw new GatewayError('InvalidParameter', `${param} must be a whole number from ${min} to ${max}`, { param });
  return number;
}
