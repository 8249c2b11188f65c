import { CallbackUrls } from '@gateway/outbound';
import { Module } from '@nestjs/common';
import { AuditTrail } from '../audit/audit-trail';
import { ApiKeyChecksumKeys } from './api-key-checksum-keys';
import { CredentialsService } from './credentials.service';
import { NamedApiKeys } from './named-api-keys';

/** Applications and their credentials only: what the operator CLI needs, without Redis or request auth. */
@Module({
  providers: [CredentialsService, NamedApiKeys, ApiKeyChecksumKeys, CallbackUrls, AuditTrail],
  exports: [CredentialsService, NamedApiKeys, ApiKeyChecksumKeys, CallbackUrls, AuditTrail],
})
export class CredentialsModule {}
