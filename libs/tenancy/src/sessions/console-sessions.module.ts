import { Module } from '@nestjs/common';
import { ConsoleSessionsService } from './console-sessions.service';
import { OperatorSetup } from './operator-setup';

/** Console sign-up, sign-in and sessions, and the operator setup link: authentication for the console. */
@Module({
  providers: [ConsoleSessionsService, OperatorSetup],
  exports: [ConsoleSessionsService, OperatorSetup],
})
export class ConsoleSessionsModule {}
