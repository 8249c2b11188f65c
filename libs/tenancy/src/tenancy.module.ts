import { Module } from '@nestjs/common';
import { ApiKeyGuard } from './auth/api-key.guard';
import { ApiKeyAuthService } from './auth/api-key-auth.service';
import { CredentialsService } from './credentials/credentials.service';
import { LimitsService } from './limits/limits.service';

@Module({
  providers: [ApiKeyAuthService, ApiKeyGuard, CredentialsService, LimitsService],
  exports: [ApiKeyAuthService, ApiKeyGuard, CredentialsService, LimitsService],
})
export class TenancyModule {}
