import { InjectQueue } from '@nestjs/bullmq';
import { Injectable } from '@nestjs/common';
import { Queue } from 'bullmq';
import { QueueName, TaskQueueName } from './job-contracts';

/** The BullMQ queue of each task endpoint: jobs are added here, and looked at again when a reply went missing. */
@Injectable()
export class TaskQueues {
  private readonly byName: Record<TaskQueueName, Queue>;

  constructor(
    @InjectQueue(QueueName.Embeddings) embeddings: Queue,
    @InjectQueue(QueueName.Chat) chat: Queue,
    @InjectQueue(QueueName.ImageEdit) imageEdit: Queue,
  ) {
    this.byName = { [QueueName.Embeddings]: embeddings, [QueueName.Chat]: chat, [QueueName.ImageEdit]: imageEdit };
  }

  of(queue: TaskQueueName): Queue {
    return this.byName[queue];
  }

  all(): Queue[] {
    return Object.values(this.byName);
  }
}
