import { Module } from '@nestjs/common';
import { ApiKeyGuard } from './auth/api-key.guard';
import { ApiKeyAuthService } from './auth/api-key-auth.service';
import { CredentialsService } from './credentials/credentials.service';

@Module({
  providers: [ApiKeyAuthService, ApiKeyGuard, CredentialsService],
  exports: [ApiKeyAuthService, ApiKeyGuard, CredentialsService],
})
export class TenancyModule {}
