import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { ApiKeyAuthService } from './api-key-auth.service';
import { Principal } from './principal';

export type AuthenticatedRequest = FastifyRequest & { principal: Principal };

/** Bearer API key on every /v1 route: 401 MissingAuthorization / InvalidApiKey. */
@Injectable()
export class ApiKeyGuard implements CanActivate {
  constructor(private readonly auth: ApiKeyAuthService) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<AuthenticatedRequest>();
    request.principal = await this.auth.authenticate(request.headers.authorization);
    return true;
  }
}
