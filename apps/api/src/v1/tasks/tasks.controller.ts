import { ApiAuthGuard, CurrentPrincipal, Principal } from '@gateway/tenancy';
import { Controller, Get, Param } from '@nestjs/common';
import { UseGuards } from '@nestjs/common';
import { TaskViewService } from './task-view.service';

@Controller('v1/tasks')
@UseGuards(ApiAuthGuard)
export class TasksController {
  constructor(private readonly tasks: TaskViewService) {}

  @Get(':id')
  get(@Param('id') id: string, @CurrentPrincipal() principal: Principal) {
    return this.tasks.view(id, principal.appId);
  }
}
