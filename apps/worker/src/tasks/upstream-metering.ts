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
 * edit's images each from the route whose call answered for it, its cost shared among them by image (an image
 * stored by an earlier run of the job was recorded by that run, so it has no route here).
 */
function billedRoutes(executed: ExecutedTask | undefined, attempts: UpstreamAttempt[]): Map<string, UpstreamUsage> {
  const billed = new Map<string, UpstreamUsage>();
  if (!executed) return billed;
  const upstream = new Set(attempts.map((attempt) => attempt.route));
  const { usage, costNanos } = executed;
  if (executed.route !== undefined) {
    if (upstream.has(executed.route))
      billed.set(executed.route, {
        promptTokens: usage.prompt_tokens,
        ...(usage.completion_tokens !== undefined ? { completionTokens: usage.completion_tokens } : {}),
        costNanos,
      });
    return billed;
  }
  const delivered = usage.images ?? 0;
  if (delivered === 0) return billed;
  const imagesByRoute = new Map<string, Set<number>>();
  for (const attempt of attempts) {
    if (attempt.outcome !== 'ok' || attempt.image === undefined) continue;
    const images = imagesByRoute.get(attempt.route) ?? new Set<number>();
    images.add(attempt.image);
    imagesByRoute.set(attempt.route, images);
  }
  for (const [route, images] of imagesByRoute)
    billed.set(route, { images: images.size, costNanos: Math.round((costNanos * images.size) / delivered) });
  return billed;
}
