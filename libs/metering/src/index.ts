export * from './usage-rollups.service';
export * from './metering.module';
