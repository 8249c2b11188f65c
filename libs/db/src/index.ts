export * from './db.module';
export * from './applications/application.schema';
export * from './applications/applications.repository';
export * from './api-keys/api-key.schema';
export * from './api-keys/api-keys.repository';
export * from './tasks/task.schema';
export * from './tasks/tasks.repository';
