export * from './provider.types';
export * from './provider-router.service';
export * from './providers.module';
