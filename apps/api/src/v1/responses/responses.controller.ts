import { ENDPOINTS } from '@gateway/contracts';
import { ApiAuthGuard, CurrentPrincipal, Principal } from '@gateway/tenancy';
import { Body, Controller, Get, HttpCode, Param, Post, Req, Res, UseGuards } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { TaskSubmitter } from '../task-submitter.service';
import { ResponsesRequestService } from './responses-request.service';
import { RESPONSES_SSE } from './responses-sse';
import { StoredResponses } from './stored-responses.service';

/** OpenAI's Responses API: one chat task per response, answered in the Responses shape. */
@Controller(ENDPOINTS.responses.path)
@UseGuards(ApiAuthGuard)
export class ResponsesController {
  constructor(
    private readonly requests: ResponsesRequestService,
    private readonly submitter: TaskSubmitter,
    private readonly stored: StoredResponses,
  ) {}

  /** Answers itself (not passthrough): a streamed response takes the connection over for its SSE. */
  @Post()
  @HttpCode(200)
  async create(
    @Body() body: unknown,
    @CurrentPrincipal() principal: Principal,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ) {
    const { stream, task } = await this.requests.check(body, principal.appId);
    const submission = { ...task, endpoint: ENDPOINTS.responses, principal, http: { request, reply } } as const;
    return stream
      ? this.submitter.stream(submission, RESPONSES_SSE)
      : reply.send(await this.submitter.submit(submission));
  }

  @Get(':id')
  get(@Param('id') id: string, @CurrentPrincipal() principal: Principal) {
    return this.stored.read(id, principal.appId);
  }
}
