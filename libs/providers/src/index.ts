export * from './provider.types';
export * from './provider-router.service';
export * from './providers.module';
export { countTokens, countMessageTokens } from './token-estimate';
export { cl100kTokens, cl100kTokensWithin, decodeCl100k, isCl100kToken } from './cl100k';
