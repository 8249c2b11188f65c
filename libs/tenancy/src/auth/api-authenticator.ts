import { GatewayError } from '@gateway/common';
import { Injectable } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { LimitsService, rateLimitHeaders } from '../limits/limits.service';
import { ApiKeyAuthService } from './api-key-auth.service';
import { Principal } from './principal';
import { SignatureAuthService, SignedCaller } from './signature-auth.service';

export type AuthenticatedRequest = FastifyRequest & {
  principal: Principal;
  /** The application a caller named, known before it is authenticated: its refusals are listed to that application. */
  callerAppId?: string;
  rawBody?: Buffer;
  /** Set once beforeBody() passed; a signed request's caller still waits for its body's signature. */
  apiAuth?: { signed?: SignedCaller };
};

/**
 * /v1 authentication in two steps around the body (docs/contracts.md): a Bearer API key (401 MissingAuthorization /
 * InvalidApiKey) or, without one, an App ID + Secret Key signature (401 InvalidSignature / ExpiredTimestamp), and
 * the application's IP whitelist (403 IpNotAllowed), all before the body is read; a signature over the body after.
 * request.ip honours X-Forwarded-For only from TRUSTED_PROXIES.
 */
@Injectable()
export class ApiAuthenticator {
  constructor(
    private readonly apiKeys: ApiKeyAuthService,
    private readonly signatures: SignatureAuthService,
    private readonly limits: LimitsService,
  ) {}

  /** What needs no body: run in the onRequest hook, so an unknown caller's body is never read. */
  async beforeBody(request: AuthenticatedRequest, reply: FastifyReply): Promise<void> {
    const signed = !request.headers.authorization && request.headers['x-signature'] !== undefined;
    let caller: SignedCaller | undefined;
    let principal: Principal;
    if (signed) {
      caller = await this.signatures.identify(request);
      principal = caller.principal;
      request.callerAppId = caller.appId;
    } else {
      principal = await this.apiKeys.authenticate(request.headers.authorization, request.ip, (appId) => {
        request.callerAppId = appId;
      });
      request.principal = principal;
    }
    if (!principal.allowList.allows(request.ip)) {
      throw new GatewayError(
        'IpNotAllowed',
        `calls from ${request.ip} are not allowed by this application's IP whitelist`,
      );
    }
    request.apiAuth = { signed: caller };
    // Task POSTs report the window as their admission leaves it; other routes report it as it stands.
    if (request.method === 'GET' && principal.dailyCallLimit) {
      const state = await this.limits.dailyState(principal);
      if (state) reply.headers(rateLimitHeaders(state));
    }
  }

  /** A signed request's signature, over the body now read; a Bearer request is done already. */
  async afterBody(request: AuthenticatedRequest): Promise<void> {
    const caller = request.apiAuth?.signed;
    if (caller) request.principal = await this.signatures.verify(request, caller);
  }
}
