import { CallbackUrls } from '@gateway/outbound';
import { Module } from '@nestjs/common';
import { AuditTrail } from '../audit/audit-trail';
import { CredentialsService } from './credentials.service';

/** Applications and their credentials only: what the operator CLI needs, without Redis or request auth. */
@Module({
  providers: [CredentialsService, CallbackUrls, AuditTrail],
  exports: [CredentialsService, CallbackUrls, AuditTrail],
})
export class CredentialsModule {}
