import { CanActivate, createParamDecorator, ExecutionContext, Injectable } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { ApiAuthenticator, AuthenticatedRequest } from './api-authenticator';

/**
 * Every authenticated /v1 route. The api's onRequest hook (apps/api/src/http/api-auth-hook.ts) has normally done the
 * part before the body; a route it does not cover is authenticated here in full, so none is ever left open.
 */
@Injectable()
export class ApiAuthGuard implements CanActivate {
  constructor(private readonly authenticator: ApiAuthenticator) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<AuthenticatedRequest>();
    if (!request.apiAuth)
      await this.authenticator.beforeBody(request, context.switchToHttp().getResponse<FastifyReply>());
    await this.authenticator.afterBody(request);
    return true;
  }
}

/** The authenticated caller of a /v1 route, as ApiAuthGuard left it on the request. */
export const CurrentPrincipal = createParamDecorator(
  (_data: unknown, context: ExecutionContext) => context.switchToHttp().getRequest<AuthenticatedRequest>().principal,
);
