export * from './config/env';
export * from './config/app-config';
export * from './config/config.module';
export * from './errors/error-codes';
export * from './errors/gateway-error';
export * from './ids/ids';
export * from './logging/logger';
export * from './logging/logger.module';
