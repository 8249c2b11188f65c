export * from './delivered-tasks';
export * from './ledger.module';
export * from './outcome-delivery';
export * from './record-writer.service';
export * from './usage-folding.service';
export * from './usage-ledger';
export * from './usage-reconciler.service';
export * from './upstream-reconciler.service';
