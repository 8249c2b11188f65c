import { ApiAuthenticator, AuthenticatedRequest } from '@gateway/tenancy';
import { RouteConfig } from '@nestjs/platform-fastify';
import type { FastifyInstance, FastifyRequest } from 'fastify';

/** Fastify route config that marks a /v1 handler anyone may call (a file URL carries its own signature). */
interface PublicApiRouteConfig {
  publicApiRoute?: boolean;
}

/** On a /v1 handler with no ApiAuthGuard: the onRequest authentication leaves its callers alone. */
export const PublicApiRoute = () => RouteConfig({ publicApiRoute: true } satisfies PublicApiRouteConfig);

/** A refused caller's body past this size is not drained: the connection closes instead. */
const DRAIN_LIMIT_BYTES = 64 * 1024;

/**
 * Authenticates /v1 in onRequest, before the body is read or parsed: a caller without a valid key, or from outside
 * the whitelist, costs a header check and (at most) one cached look-up, however large the body it sends. The
 * routes' ApiAuthGuard then checks a signed request's body, and covers any route this hook does not.
 */
export function installApiAuthHook(fastify: FastifyInstance, authenticator: ApiAuthenticator): void {
  fastify.addHook('onRequest', async (request, reply) => {
    const route = request.routeOptions.url;
    if (route === undefined || !route.startsWith('/v1/')) return;
    if ((request.routeOptions.config as PublicApiRouteConfig).publicApiRoute) return;
    try {
      await authenticator.beforeBody(request as AuthenticatedRequest, reply);
    } catch (error) {
      if (bodyOver(request, DRAIN_LIMIT_BYTES)) reply.header('connection', 'close');
      throw error;
    }
  });
}

function bodyOver(request: FastifyRequest, bytes: number): boolean {
  const length = Number(request.headers['content-length'] ?? 0);
  return request.headers['transfer-encoding'] !== undefined || !(length <= bytes);
}
