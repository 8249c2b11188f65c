export * from './provider.types';
export * from './provider-router.service';
export * from './providers.module';
export { countMessageTokens, type Tokenizer, tokenizerOf } from './tokenizers/tokenizers';
export { cl100kTokens, cl100kTokensWithin, decodeCl100k, isCl100kToken } from './cl100k';
