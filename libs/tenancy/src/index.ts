export * from './credentials/api-key';
export * from './credentials/secret-box';
export * from './credentials/credentials.service';
export * from './auth/principal';
export * from './auth/api-key-auth.service';
export * from './auth/api-key.guard';
export * from './auth/principal.decorator';
export * from './tenancy.module';
