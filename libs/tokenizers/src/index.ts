export { countChoiceTokens, countMessageTokens, type Tokenizer, tokenizerOf } from './tokenizers';
export { cl100kTokens, cl100kTokensWithin, decodeCl100k, isCl100kToken } from './cl100k';
