export * from './endpoints';
export * from './application-fields';
export * from './ip-entry';
export * from './echoed';
export * from './webhook-outcomes';
export * from './upstream-attempts';
export * from './chat-completions';
export * from './responses';
