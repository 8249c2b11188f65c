export * from './catalog.types';
export * from './catalog.service';
export * from './pricing';
export * from './catalog.module';
