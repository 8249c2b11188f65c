import { AppConfig, SecretBox } from '@gateway/common';
import { Module } from '@nestjs/common';
import { AuditTrail } from '../audit/audit-trail';
import { ApiKeyChecksumKeys } from './api-key-checksum-keys';
import { CredentialsService } from './credentials.service';
import { NamedApiKeys } from './named-api-keys';

/** One SecretBox per process, under the configured master keys: every sealer and opener of Secret Keys shares it. */
const SECRET_BOX = {
  provide: SecretBox,
  useFactory: (config: AppConfig) => new SecretBox(config.masterKeys),
  inject: [AppConfig],
};

/** Applications and their credentials only: what the operator CLI needs, without Redis or request auth. */
@Module({
  providers: [SECRET_BOX, CredentialsService, NamedApiKeys, ApiKeyChecksumKeys, AuditTrail],
  exports: [SecretBox, CredentialsService, NamedApiKeys, ApiKeyChecksumKeys, AuditTrail],
})
export class CredentialsModule {}
