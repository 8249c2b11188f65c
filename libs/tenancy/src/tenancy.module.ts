import { Module } from '@nestjs/common';
import { ApiKeyGuard } from './auth/api-key.guard';
import { ApiKeyAuthService } from './auth/api-key-auth.service';
import { SignatureAuthService } from './auth/signature-auth.service';
import { CredentialsService } from './credentials/credentials.service';
import { LimitsService } from './limits/limits.service';

@Module({
  providers: [ApiKeyAuthService, SignatureAuthService, ApiKeyGuard, CredentialsService, LimitsService],
  exports: [ApiKeyAuthService, SignatureAuthService, ApiKeyGuard, CredentialsService, LimitsService],
})
export class TenancyModule {}
