export * from './pricing.service';
export * from './upstream-reconciler.service';
export * from './metering.module';
