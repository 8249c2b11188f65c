export * from './application-metrics';
export * from './metrics.service';
export * from './metrics.module';
export * from './operations/operations.module';
export * from './operations/operations-listener';
