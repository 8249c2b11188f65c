export * from './catalog.types';
export * from './catalog.service';
export * from './catalog.module';
export * from './catalog-view';
export * from './pricing.service';
export { countChoiceTokens, countMessageTokens, type Tokenizer, tokenizerOf } from './tokenizers/tokenizers';
export { cl100kTokens, cl100kTokensWithin, decodeCl100k, isCl100kToken } from './tokenizers/cl100k';
