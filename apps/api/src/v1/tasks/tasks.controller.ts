import { ApiAuthGuard, CurrentPrincipal, Principal } from '@gateway/tenancy';
import { Controller, Get, Param } from '@nestjs/common';
import { UseGuards } from '@nestjs/common';
import { TaskReader } from './task-reader.service';

@Controller('v1/tasks')
@UseGuards(ApiAuthGuard)
export class TasksController {
  constructor(private readonly reader: TaskReader) {}

  @Get(':id')
  get(@Param('id') id: string, @CurrentPrincipal() principal: Principal) {
    return this.reader.read(id, principal.appId);
  }
}
