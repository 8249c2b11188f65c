import { GatewayError } from '@gateway/common';
import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import type { ConsoleRequest } from './console-session.guard';

/** An operator (`admin` role); runs after ConsoleSessionGuard, which reads the account's current role. */
@Injectable()
export class OperatorGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const request = context.switchToHttp().getRequest<ConsoleRequest>();
    if (request.consoleSession?.role !== 'admin')
      throw new GatewayError('OperatorOnly', "only the gateway's operators may do this");
    return true;
  }
}
