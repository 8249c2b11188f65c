import { AppConfig, GatewayError } from '@gateway/common';
import {
  AuditTrail,
  consoleActor,
  ConsoleSession,
  ConsoleSessionsService,
  SESSION_TTL_SECONDS,
} from '@gateway/tenancy';
import { Body, Controller, Get, HttpCode, Post, Req, Res, UseGuards } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ConsoleSessionGuard, SESSION_COOKIE } from './console-session.guard';
import { RegisterDto, SignInDto } from './credentials.dto';

@Controller('console/api/auth')
export class ConsoleAuthController {
  constructor(
    private readonly sessions: ConsoleSessionsService,
    private readonly config: AppConfig,
    private readonly audit: AuditTrail,
  ) {}

  @Post('register')
  async register(@Body() dto: RegisterDto, @Res({ passthrough: true }) reply: FastifyReply) {
    const registration = await this.sessions.register(dto.email, dto.password, dto.invitation);
    if ('accepted' in registration) {
      // Alike whether or not the email had an account (docs/contracts.md#console-sign-in-and-sign-up).
      reply.status(202);
      return { status: 'accepted', message: 'the invitation is used; sign in with this email and password' };
    }
    return this.signedIn(reply, registration.signedIn.token, registration.signedIn.session);
  }

  @Post('login')
  @HttpCode(200)
  async login(@Body() dto: SignInDto, @Req() request: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply) {
    const signingIn = this.sessions.login(dto.email, dto.password, request.ip);
    const { token, session } = await signingIn.catch(async (error: unknown) => {
      // A refused sign-in whose password was checked; a throttled one (RateLimited) checked nothing.
      const code = error instanceof GatewayError ? error.code : undefined;
      if (code === 'InvalidCredentials' || code === 'AccountDisabled') {
        await this.audit.record(
          { actorEmail: dto.email.toLowerCase(), address: request.ip },
          { action: 'auth.sign_in_failed', changes: { outcome: { before: null, after: code } } },
        );
      }
      throw error;
    });
    await this.audit.record(consoleActor(session, request.ip), {
      action: 'auth.sign_in',
      userId: session.userId,
      changes: {},
    });
    return this.signedIn(reply, token, session);
  }

  @Post('logout')
  @HttpCode(204)
  @UseGuards(ConsoleSessionGuard)
  async logout(@Req() request: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply) {
    await this.sessions.close(request.cookies[SESSION_COOKIE]);
    reply.clearCookie(SESSION_COOKIE, { path: '/console' });
  }

  /** Who is signed in; signed out is a normal answer (`{ user: null }`), not a 401 every signed-out page would log. */
  @Get('me')
  async me(@Req() request: FastifyRequest) {
    const session = await this.sessions.find(request.cookies?.[SESSION_COOKIE]);
    return session ? { user: presentSession(session), csrf_token: session.csrfToken } : { user: null };
  }

  private signedIn(reply: FastifyReply, token: string, session: ConsoleSession) {
    reply.setCookie(SESSION_COOKIE, token, {
      httpOnly: true,
      sameSite: 'lax',
      secure: this.config.NODE_ENV === 'production',
      path: '/console',
      maxAge: SESSION_TTL_SECONDS,
    });
    return { user: presentSession(session), csrf_token: session.csrfToken };
  }
}

function presentSession(session: ConsoleSession) {
  return { id: session.userId, email: session.email, role: session.role };
}
