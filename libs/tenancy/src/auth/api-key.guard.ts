import { GatewayError } from '@gateway/common';
import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { ApiKeyAuthService } from './api-key-auth.service';
import { Principal } from './principal';

export type AuthenticatedRequest = FastifyRequest & { principal: Principal };

/**
 * Bearer API key on every /v1 route (401 MissingAuthorization / InvalidApiKey), then the application's IP
 * whitelist (403 IpNotAllowed). request.ip honours X-Forwarded-For only from TRUSTED_PROXIES.
 */
@Injectable()
export class ApiKeyGuard implements CanActivate {
  constructor(private readonly auth: ApiKeyAuthService) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<AuthenticatedRequest>();
    const principal = await this.auth.authenticate(request.headers.authorization);
    if (!principal.allowList.allows(request.ip)) {
      throw new GatewayError('IpNotAllowed', `calls from ${request.ip} are not allowed by this application's IP whitelist`);
    }
    request.principal = principal;
    return true;
  }
}
