export * from './application-fields';
export * from './ip-entry';
