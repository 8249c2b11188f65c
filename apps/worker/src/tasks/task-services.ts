import type { AppConfig } from '@gateway/common';
import { QueueName, TaskQueueName } from '@gateway/queue';
import type { Type } from '@nestjs/common';
import { ChatTaskService } from './chat-task.service';
import { EmbeddingsTaskService } from './embeddings-task.service';
import { ImageEditTaskService } from './image-edit-task.service';
import type { TaskService } from './task-service';

export interface TaskQueueEntry<Q extends TaskQueueName> {
  service: Type<TaskService<Q>>;
  /** Jobs of this queue run at once per worker; WORKER_CONCURRENCY when absent. */
  concurrency?: (config: AppConfig) => number;
}

/** The task service that runs each task queue's jobs; JobPickup reads it to start the queue's BullMQ Worker. */
export const TASK_SERVICES: { [Q in TaskQueueName]: TaskQueueEntry<Q> } = {
  [QueueName.Embeddings]: { service: EmbeddingsTaskService },
  [QueueName.Chat]: { service: ChatTaskService },
  // Each image edit holds decoded images in memory.
  [QueueName.ImageEdit]: { service: ImageEditTaskService, concurrency: (config) => config.IMAGE_EDIT_CONCURRENCY },
};

export function isTaskQueue(queue: string): queue is TaskQueueName {
  return Object.hasOwn(TASK_SERVICES, queue);
}
