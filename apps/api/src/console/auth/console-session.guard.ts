import { GatewayError } from '@gateway/common';
import { ConsoleSession, ConsoleSessionsService } from '@gateway/tenancy';
import { CanActivate, createParamDecorator, ExecutionContext, Injectable } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { timingSafeEqual } from 'node:crypto';

export const SESSION_COOKIE = 'gw_session';
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

export type ConsoleRequest = FastifyRequest & { consoleSession: ConsoleSession };

/** A signed-in console user (httpOnly session cookie); state-changing requests also need the session's X-CSRF-Token. */
@Injectable()
export class ConsoleSessionGuard implements CanActivate {
  constructor(private readonly sessions: ConsoleSessionsService) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<ConsoleRequest>();
    const session = await this.sessions.find(request.cookies?.[SESSION_COOKIE]);
    if (!session) throw new GatewayError('MissingAuthorization', 'sign in to the console first');
    if (!SAFE_METHODS.has(request.method) && !sameToken(request.headers['x-csrf-token'], session.csrfToken)) {
      throw new GatewayError('CsrfRejected', 'send the X-CSRF-Token header you received when signing in');
    }
    request.consoleSession = session;
    return true;
  }
}

function sameToken(given: string | string[] | undefined, expected: string): boolean {
  if (typeof given !== 'string' || given.length !== expected.length) return false;
  return timingSafeEqual(Buffer.from(given), Buffer.from(expected));
}

/** The session ConsoleSessionGuard found, for a handler's parameter. */
export const CurrentSession = createParamDecorator(
  (_data: unknown, context: ExecutionContext) => context.switchToHttp().getRequest<ConsoleRequest>().consoleSession,
);
