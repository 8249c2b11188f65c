// jscpd:ignore-start: the three task controllers import the same decorators and services, which is not logic.
import { ENDPOINTS } from '@gateway/contracts';
import { ApiAuthGuard, CurrentPrincipal, Principal } from '@gateway/tenancy';
import { Body, Controller, HttpCode, Post, Req, Res, UseGuards } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { TaskSubmitter } from '../task-submitter.service';
import { EmbeddingsRequestDto } from './embeddings.dto';
import { EmbeddingsRequestService } from './embeddings-request.service';
// jscpd:ignore-end

@Controller(ENDPOINTS.embeddings.path)
@UseGuards(ApiAuthGuard)
export class EmbeddingsController {
  constructor(
    private readonly requests: EmbeddingsRequestService,
    private readonly submitter: TaskSubmitter,
  ) {}

  @Post()
  @HttpCode(200)
  create(
    @Body() dto: EmbeddingsRequestDto,
    @CurrentPrincipal() principal: Principal,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const checked = this.requests.check(dto);
    return this.submitter.submit({
      endpoint: ENDPOINTS.embeddings,
      reserveTokens: checked.reserveTokens,
      principal,
      model: dto.model,
      resolvedModel: checked.resolvedModel,
      request: {
        input: checked.input,
        dimensions: checked.dimensions,
        encodingFormat: checked.encodingFormat,
        user: dto.user,
      },
      http: { request, reply },
    });
  }
}
