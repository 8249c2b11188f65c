import { GatewayError } from '@gateway/common';
import { ConsoleRefusalsService, ConsoleSession, MAX_REFUSALS_PAGE } from '@gateway/tenancy';
import { Controller, Get, Param, Query, UseGuards } from '@nestjs/common';
import { CurrentSession } from '../auth/console-session.decorator';
import { ConsoleSessionGuard } from '../auth/console-session.guard';
import { refusalFilter } from './request-filters';

const DEFAULT_LIMIT = 50;

/**
 * The /v1 calls refused before the queue (400, 401 with a known caller, 403, 429, …), which have no task record:
 * per application, and across the account's applications. Calls that became tasks are listed by `…/tasks`.
 */
@Controller('console/api')
@UseGuards(ConsoleSessionGuard)
export class ConsoleRequestsController {
  constructor(private readonly refusals: ConsoleRefusalsService) {}

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
