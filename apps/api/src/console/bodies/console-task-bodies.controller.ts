import { ConsoleSession } from '@gateway/tenancy';
import { ConsoleTaskBodiesService } from './console-task-bodies.service';
import { Controller, Get, Param, UseGuards } from '@nestjs/common';
import { ConsoleSessionGuard, CurrentSession } from '../auth/console-session.guard';

/** A task's request and response bodies, kept when its application has `log_bodies` on (docs/contracts.md). */
@Controller('console/api/applications')
@UseGuards(ConsoleSessionGuard)
export class ConsoleTaskBodiesController {
  constructor(private readonly bodies: ConsoleTaskBodiesService) {}

  @Get(':id/tasks/:taskId/bodies')
  get(@CurrentSession() session: ConsoleSession, @Param('id') id: string, @Param('taskId') taskId: string) {
    return this.bodies.get(id, session.userId, taskId);
  }
}
