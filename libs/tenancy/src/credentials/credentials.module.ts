import { Module } from '@nestjs/common';
import { CredentialsService } from './credentials.service';

/** Applications and their credentials only: what the operator CLI needs, without Redis or request auth. */
@Module({ providers: [CredentialsService], exports: [CredentialsService] })
export class CredentialsModule {}
