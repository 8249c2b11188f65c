import { GatewayError } from '@gateway/common';
import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { LimitsService, rateLimitHeaders } from '../limits/limits.service';
import { ApiKeyAuthService } from './api-key-auth.service';
import { SignatureAuthService } from './signature-auth.service';
import { Principal } from './principal';

export type AuthenticatedRequest = FastifyRequest & { principal: Principal; rawBody?: Buffer };

/**
 * Every /v1 route: a Bearer API key (401 MissingAuthorization / InvalidApiKey) or, without one, an App ID +
 * Secret Key signature (401 InvalidSignature / ExpiredTimestamp); then the application's IP whitelist
 * (403 IpNotAllowed). request.ip honours X-Forwarded-For only from TRUSTED_PROXIES.
 */
@Injectable()
export class ApiAuthGuard implements CanActivate {
  constructor(
    private readonly apiKeys: ApiKeyAuthService,
    private readonly signatures: SignatureAuthService,
    private readonly limits: LimitsService,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<AuthenticatedRequest>();
    const signed = !request.headers.authorization && request.headers['x-signature'] !== undefined;
    const principal = signed
      ? await this.signatures.authenticate(request)
      : await this.apiKeys.authenticate(request.headers.authorization, request.ip);
    if (!principal.allowList.allows(request.ip)) {
      throw new GatewayError(
        'IpNotAllowed',
        `calls from ${request.ip} are not allowed by this application's IP whitelist`,
      );
    }
    request.principal = principal;
    // Task POSTs report the window as their admission leaves it; other routes report it as it stands.
    if (request.method === 'GET' && principal.dailyCallLimit) {
      const state = await this.limits.dailyState(principal);
      if (state) context.switchToHttp().getResponse<FastifyReply>().headers(rateLimitHeaders(state));
    }
    return true;
  }
}
