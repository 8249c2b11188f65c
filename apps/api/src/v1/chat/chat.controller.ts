import { QueueName } from '@gateway/queue';
import { ApiAuthGuard, CurrentPrincipal, Principal } from '@gateway/tenancy';
import { Body, Controller, HttpCode, Post, Req, Res, UseGuards } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { TaskSubmissionService } from '../task-submission.service';
import { ChatCompletionRequestDto } from './chat.dto';
import { ChatRequestService } from './chat-request.service';

@Controller('v1/chat/completions')
@UseGuards(ApiAuthGuard)
export class ChatController {
  constructor(private readonly requests: ChatRequestService, private readonly submissions: TaskSubmissionService) {}

  @Post()
  @HttpCode(200)
  create(
    @Body() dto: ChatCompletionRequestDto,
    @CurrentPrincipal() principal: Principal,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const checked = this.requests.check(dto);
    return this.submissions.run({
      queue: QueueName.Chat,
      endpoint: 'chat.completions',
      capability: 'chat',
      reserveTokens: checked.estimatedTokens,
      principal,
      model: dto.model,
      resolvedModel: checked.resolvedModel,
      request: checked.request,
      http: { request, reply },
    });
  }
}
