import { Module } from '@nestjs/common';
import { ApiKeyGuard } from './auth/api-key.guard';
import { ApiKeyAuthService } from './auth/api-key-auth.service';
import { SignatureAuthService } from './auth/signature-auth.service';
import { CredentialsModule } from './credentials/credentials.module';
import { LimitsService } from './limits/limits.service';

@Module({
  imports: [CredentialsModule],
  providers: [ApiKeyAuthService, SignatureAuthService, ApiKeyGuard, LimitsService],
  exports: [ApiKeyAuthService, SignatureAuthService, ApiKeyGuard, CredentialsModule, LimitsService],
})
export class TenancyModule {}
