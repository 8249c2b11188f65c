import { GatewayError } from '@gateway/common';
import { ApplicationsRepository } from '@gateway/db';
import { RefusedCall, RefusedCalls } from '@gateway/queue';
import { Injectable } from '@nestjs/common';

/** At most this many refused calls are shown per page (the lists keep REFUSALS_KEPT). */
export const MAX_REFUSALS_PAGE = 200;

/** The /v1 calls refused before the queue, as the console's Requests lists them, per application or account-wide. */
@Injectable()
export class ConsoleRefusalsService {
  constructor(
    private readonly applications: ApplicationsRepository,
    private readonly refusedCalls: RefusedCalls,
  ) {}

  /** One application's, newest first. */
  async forApplication(appId: string, ownerId: string, limit: number, offset: number) {
    if (!(await this.applications.findOwned(appId, ownerId)))
      throw new GatewayError('NotFound', `no application ${appId} in your account`, { param: 'id' });
    const page = await this.refusedCalls.list(appId, limit, offset);
    return { data: page.data.map((call) => presentRefusal(appId, call)), not_listed: page.notListed };
  }

  /** The newest of all the account's applications together; every other one of them is counted in `not_listed`. */
  async forAccount(ownerId: string, limit: number) {
    const apps = await this.applications.list(ownerId);
    const pages = await Promise.all(
      apps.map(async (app) => ({ appId: app._id, ...(await this.refusedCalls.list(app._id, limit)) })),
    );
    const all = pages
      .flatMap(({ appId, data }) => data.map((call) => presentRefusal(appId, call)))
      .sort((a, b) => b.at.localeCompare(a.at));
    const shown = all.slice(0, limit);
    const total = pages.reduce((sum, page) => sum + page.total, 0);
    return { data: shown, not_listed: total - shown.length };
  }
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
