export * from './pricing.service';
export * from './image-billing.service';
export * from './usage-folder.service';
export * from './usage-reconciler.service';
export * from './upstream-reconciler.service';
export * from './metering.module';
