import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import type { ConsoleRequest } from './console-session.guard';

export const CurrentSession = createParamDecorator(
  (_data: unknown, context: ExecutionContext) => context.switchToHttp().getRequest<ConsoleRequest>().consoleSession,
);
