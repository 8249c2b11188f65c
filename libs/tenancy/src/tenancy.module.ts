import { Module } from '@nestjs/common';
import { ApiAuthGuard } from './auth/api-auth.guard';
import { ApiAuthenticator } from './auth/api-authenticator';
import { ApiKeyAuthService } from './auth/api-key-auth.service';
import { KeyLastUsed } from './auth/key-last-used';
import { SignatureAuthService } from './auth/signature-auth.service';
import { CredentialsModule } from './credentials/credentials.module';
import { LimitsService } from './limits/limits.service';

@Module({
  imports: [CredentialsModule],
  providers: [ApiKeyAuthService, KeyLastUsed, SignatureAuthService, ApiAuthenticator, ApiAuthGuard, LimitsService],
  exports: [ApiKeyAuthService, SignatureAuthService, ApiAuthenticator, ApiAuthGuard, CredentialsModule, LimitsService],
})
export class TenancyModule {}
