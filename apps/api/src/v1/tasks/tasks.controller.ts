import { ApiAuthGuard, CurrentPrincipal, Principal } from '@gateway/tenancy';
import { Controller, Get, Param, Res } from '@nestjs/common';
import { UseGuards } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { TaskReader } from './task-reader.service';

@Controller('v1/tasks')
@UseGuards(ApiAuthGuard)
export class TasksController {
  constructor(private readonly reader: TaskReader) {}

  @Get(':id')
  async get(
    @Param('id') id: string,
    @CurrentPrincipal() principal: Principal,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const task = await this.reader.read(id, principal.appId);
    // What served, as on the synchronous answer: an asynchronous caller reads it here.
    if (typeof task.route === 'string') void reply.header('x-gateway-route', task.route);
    return task;
  }
}
