export * from './catalog.types';
export * from './catalog.service';
export * from './catalog.module';
export * from './catalog-view';
export * from './pricing.service';
