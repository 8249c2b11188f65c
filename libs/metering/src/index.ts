export * from './pricing.service';
export * from './image-billing.service';
export * from './usage-rollups.service';
export * from './metering.module';
