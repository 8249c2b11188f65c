export * from './job-contracts';
export * from './redis-connections';
export * from './queue.module';
export * from './task-gateway.service';
