import { addUsage, MeteredRoute, UpstreamAttempt, UpstreamUsage } from '@gateway/contracts';
import type { ExecutedTask } from './task-service';

/**
 * A task's upstream routes, each with what the gateway billed for its answers (`computed`) and what its answers
 * stated (`reported`), for reconciling with the upstreams' bills (docs/contracts.md, collections). Calls that did
 * not leave the process (the local engine) are not recorded, so they have no entry.
 *
 * Computed is the gateway's own figure where it has one: images are the ones it delivered, not the upstream's
 * `image_count`, and cost is at the catalog's price, not the upstream's stated `cost`. Tokens are billed by the
 * upstream's own count when its answer gives one, so for the call that answered they match by construction; token
 * drift shows calls the upstream answered and the caller was not billed for (an embeddings part of a route that
 * failed afterwards) and answers the gateway had to count itself.
 */
export function meteredRoutes(executed: ExecutedTask | undefined, attempts: UpstreamAttempt[]): MeteredRoute[] {
  const routes = new Map<string, MeteredRoute>();
  const entry = (route: string) => {
    let metered = routes.get(route);
    if (!metered) routes.set(route, (metered = { route, computed: {} }));
    return metered;
  };
  for (const [route, computed] of billedRoutes(executed, attempts)) entry(route).computed = computed;
  for (const attempt of attempts) {
    if (attempt.outcome !== 'ok' || !attempt.reported) continue;
    const metered = entry(attempt.route);
    metered.reported = addUsage(metered.reported ?? {}, attempt.reported);
  }
  return [...routes.values()];
}

/** The attempts as the task record keeps them: what each answer reported is in the task's metered routes. */
export function withoutReports(attempts: UpstreamAttempt[]): UpstreamAttempt[] {
  return attempts.map(({ reported: _reported, ...attempt }) => attempt);
}

/**
 * What the gateway billed per upstream route. A chat, Responses or embeddings answer comes from one route; an image
 * edit's images each from the route whose call made it, at that route's price (an image stored by an earlier run of
 * the job was recorded by that run, so it has no route here).
 */
function billedRoutes(executed: ExecutedTask | undefined, attempts: UpstreamAttempt[]): Map<string, UpstreamUsage> {
  const billed = new Map<string, UpstreamUsage>();
  if (!executed) return billed;
  const upstream = new Set(attempts.map((attempt) => attempt.route));
  const { usage, costNanos } = executed;
  if (executed.billedImages) {
    for (const { route, unitPriceNanos: imageNanos } of executed.billedImages) {
      if (route === undefined || !upstream.has(route)) continue;
      const sums = billed.get(route);
      billed.set(route, { images: (sums?.images ?? 0) + 1, costNanos: (sums?.costNanos ?? 0) + imageNanos });
    }
    return billed;
  }
  if (executed.route !== undefined && upstream.has(executed.route))
    billed.set(executed.route, {
      promptTokens: usage.prompt_tokens,
      ...(usage.completion_tokens !== undefined ? { completionTokens: usage.completion_tokens } : {}),
      costNanos,
    });
  return billed;
}
