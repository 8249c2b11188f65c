import { RefusedCalls } from '@gateway/redis';
import { AuthenticatedRequest } from '@gateway/tenancy';
import type { FastifyInstance } from 'fastify';

/**
 * Notes every /v1 call refused before the queue (4xx without a task) of a known application, so the console's
 * Requests lists it: a push onto RefusedCalls' buffer, written to Redis in batches. A refused caller with no known
 * application (a key that matches none) belongs to nobody's list.
 */
export function installRefusalLog(fastify: FastifyInstance, refusedCalls: RefusedCalls): void {
  fastify.addHook('onSend', (request, reply, payload, done) => {
    const status = reply.statusCode;
    const route = request.routeOptions.url;
    if (status < 400 || status >= 500 || request.taskId || !route?.startsWith('/v1/')) return done(null, payload);
    const { principal, callerAppId } = request as Partial<AuthenticatedRequest>;
    const appId = principal?.appId ?? callerAppId;
    if (appId) {
      const error = errorOf(payload);
      const model = (request.body as { model?: unknown } | undefined)?.model;
      refusedCalls.note(appId, {
        at: Date.now(),
        status,
        code: error.code,
        message: error.message,
        method: request.method,
        route,
        requestId: String(request.id),
        ...(principal?.keyId ? { keyId: principal.keyId } : {}),
        ...(typeof model === 'string' ? { model: model.slice(0, 200) } : {}),
        async: request.headers['x-async'] === 'enable',
        latencyMs: Math.round(performance.now() - request.gatewayTiming.startedAt),
      });
    }
    done(null, payload);
  });
}

/** The code and message of the error envelope being sent (docs/contracts.md). */
function errorOf(payload: unknown): { code: string; message: string } {
  try {
    const { error } = JSON.parse(String(payload)) as { error?: { code?: unknown; message?: unknown } };
    if (typeof error?.code === 'string')
      return { code: error.code, message: typeof error.message === 'string' ? error.message : '' };
  } catch {
    // Not an envelope: fall through.
  }
  return { code: 'Unknown', message: '' };
}
