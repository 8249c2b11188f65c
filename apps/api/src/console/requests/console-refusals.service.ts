import { GatewayError, utcDay } from '@gateway/common';
import { ApplicationsRepository } from '@gateway/db';
import { RefusedCall, RefusedCalls, REFUSALS_KEPT } from '@gateway/redis';
import { Injectable } from '@nestjs/common';

/** At most this many refused calls are shown per page (the lists keep REFUSALS_KEPT). */
export const MAX_REFUSALS_PAGE = 200;

/** What a refused-calls listing keeps; every field given must match (UTC days inclusive). */
export interface RefusalFilter {
  from?: string;
  to?: string;
  model?: string;
  code?: string;
  /** The HTTP status answered. */
  status?: number;
  keyId?: string;
  async?: boolean;
}

/**
 * The /v1 calls refused before the queue, as the console's Requests lists them, per application or account-wide. A
 * filtered listing reads the application's whole list (at most REFUSALS_KEPT) and filters it in memory.
 */
@Injectable()
export class ConsoleRefusalsService {
  constructor(
    private readonly applications: ApplicationsRepository,
    private readonly refusedCalls: RefusedCalls,
  ) {}

  /** One application's, newest first. */
  async forApplication(appId: string, ownerId: string, limit: number, offset: number, filter: RefusalFilter = {}) {
    if (!(await this.applications.findOwned(appId, ownerId)))
      throw new GatewayError('NotFound', `no application ${appId} in your account`, { param: 'id' });
    const page = await this.listed(appId, limit, offset, filter);
    return { data: page.data.map((call) => presentRefusal(appId, call)), not_listed: page.notListed };
  }

  /** Every refusal of one application the filter keeps, newest first: what an export writes. */
  async allForApplication(appId: string, filter: RefusalFilter) {
    const page = await this.listed(appId, REFUSALS_KEPT, 0, filter);
    return page.data.map((call) => presentRefusal(appId, call));
  }

  /** A page of one application's refusals; `unshown` counts the others a listing of this filter leaves out. */
  private async listed(appId: string, limit: number, offset: number, filter: RefusalFilter) {
    if (Object.keys(filter).length === 0) {
      const page = await this.refusedCalls.list(appId, limit, offset);
      return { ...page, unshown: page.total - page.data.length };
    }
    const page = await this.refusedCalls.list(appId, REFUSALS_KEPT, 0);
    const kept = page.data.filter((call) => matches(call, filter));
    const data = kept.slice(offset, offset + limit);
    return { ...page, data, unshown: page.notListed + kept.length - data.length };
  }

  /** The newest of all the account's applications together; every other one of them is counted in `not_listed`. */
  async forAccount(ownerId: string, limit: number, filter: RefusalFilter = {}) {
    const apps = await this.applications.list(ownerId);
    const pages = await Promise.all(
      apps.map(async (app) => ({ appId: app._id, ...(await this.listed(app._id, limit, 0, filter)) })),
    );
    const all = pages
      .flatMap(({ appId, data }) => data.map((call) => presentRefusal(appId, call)))
      .sort((a, b) => b.at.localeCompare(a.at));
    const shown = all.slice(0, limit);
    const unshown = pages.reduce((sum, page) => sum + page.unshown + page.data.length, 0) - shown.length;
    return { data: shown, not_listed: unshown };
  }
}

function matches(call: RefusedCall, filter: RefusalFilter): boolean {
  const day = filter.from !== undefined || filter.to !== undefined ? utcDay(call.at) : '';
  return (
    (filter.from === undefined || day >= filter.from) &&
    (filter.to === undefined || day <= filter.to) &&
    (filter.model === undefined || call.model === filter.model) &&
    (filter.code === undefined || call.code === filter.code) &&
    (filter.status === undefined || call.status === filter.status) &&
    (filter.keyId === undefined || call.keyId === filter.keyId) &&
    (filter.async === undefined || call.async === filter.async)
  );
}

function presentRefusal(appId: string, call: RefusedCall) {
  return {
    app_id: appId,
    at: new Date(call.at).toISOString(),
    status: call.status,
    code: call.code,
    message: call.message,
    method: call.method,
    route: call.route,
    request_id: call.requestId,
    key_id: call.keyId ?? null,
    model: call.model ?? null,
    async: call.async,
    latency_ms: call.latencyMs,
  };
}
