export * from './provider.types';
export * from './provider-router.service';
export * from './providers.module';
export { countTokens, countMessageTokens } from './token-estimate';
