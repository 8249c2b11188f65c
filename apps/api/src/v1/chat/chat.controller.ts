// jscpd:ignore-start: the three task controllers import the same decorators and services, which is not logic.
import { ENDPOINTS } from '@gateway/contracts';
import { ApiAuthGuard, CurrentPrincipal, Principal } from '@gateway/tenancy';
import { Body, Controller, HttpCode, Post, Req, Res, UseGuards } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { TaskSubmitter } from '../task-submitter.service';
import { ChatRequestService } from './chat-request.service';
// jscpd:ignore-end

@Controller(ENDPOINTS.chat.path)
@UseGuards(ApiAuthGuard)
export class ChatController {
  constructor(
    private readonly requests: ChatRequestService,
    private readonly submitter: TaskSubmitter,
  ) {}

  /**
   * Answers itself (not passthrough): a streamed completion takes the connection over for its SSE. The body is
   * OpenAI's, checked against its JSON Schema by ChatRequestService rather than a DTO class.
   */
  @Post()
  @HttpCode(200)
  async create(
    @Body() body: unknown,
    @CurrentPrincipal() principal: Principal,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ) {
    const checked = this.requests.check(body);
    const submission = {
      endpoint: ENDPOINTS.chat,
      reserveTokens: checked.reserveTokens,
      principal,
      model: (body as { model: string }).model,
      resolvedModel: checked.resolvedModel,
      request: checked.request,
      http: { request, reply },
    } as const;
    if (checked.stream) return this.submitter.stream(submission);
    return reply.send(await this.submitter.submit(submission));
  }
}
