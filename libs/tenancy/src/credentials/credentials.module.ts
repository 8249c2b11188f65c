import { Module } from '@nestjs/common';
import { CallbackUrls } from '../network/callback-urls';
import { CredentialsService } from './credentials.service';

/** Applications and their credentials only: what the operator CLI needs, without Redis or request auth. */
@Module({ providers: [CredentialsService, CallbackUrls], exports: [CredentialsService, CallbackUrls] })
export class CredentialsModule {}
