export * from './job-contracts';
export * from './outcome-codec';
export * from './queue.module';
export * from './task-queues.service';
export * from './reply-waiters.service';
export * from './job-dispatcher.service';
export * from './bull-client';
export * from './queue-overview.service';
