export * from './provider.types';
export * from './provider-router.service';
export * from './providers.module';
export { DashScopeProvider } from './dashscope/dashscope.provider';
export { MAX_RESULT_IMAGE_BYTES } from './upstream-http';
export { hashEmbedding, countTokens, countMessageTokens } from './local/hash-embedder';
