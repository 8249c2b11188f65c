export * from './job-contracts';
export * from './outcome-codec';
export * from './outcome-store.service';
export * from './lease-semaphore.service';
export * from './gateway-redis.service';
export * from './redis-connections';
export * from './queue.module';
export * from './task-gateway.service';
