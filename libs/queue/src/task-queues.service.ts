import { InjectQueue } from '@nestjs/bullmq';
import { Injectable } from '@nestjs/common';
import { Queue } from 'bullmq';
import { GatewayRedis } from '@gateway/redis';
import { QueueName, TaskQueueName } from './job-contracts';

/** The BullMQ queue of each task endpoint: jobs are added here, and looked at again when a reply went missing. */
@Injectable()
export class TaskQueues {
  private readonly byName: Record<TaskQueueName, Queue>;

  constructor(
    @InjectQueue(QueueName.Embeddings) embeddings: Queue,
    @InjectQueue(QueueName.Chat) chat: Queue,
    @InjectQueue(QueueName.ImageEdit) imageEdit: Queue,
    private readonly redis: GatewayRedis,
  ) {
    this.byName = { [QueueName.Embeddings]: embeddings, [QueueName.Chat]: chat, [QueueName.ImageEdit]: imageEdit };
  }

  of(queue: TaskQueueName): Queue {
    return this.byName[queue];
  }

  all(): Queue[] {
    return Object.values(this.byName);
  }

  /**
   * Which of these tasks are still running on `queue`: their job exists, has not finished and has delivered no
   * outcome. One round trip for all of them.
   */
  async stillRunning(queue: TaskQueueName, taskIds: string[]): Promise<Set<string>> {
    const bull = this.of(queue);
    const pipeline = this.redis.client.pipeline();
    for (const taskId of taskIds) {
      // A job hash always has its timestamp; finishedOn appears when it completes or fails for good.
      pipeline.hmget(bull.toKey(taskId), 'timestamp', 'finishedOn');
      pipeline.exists(this.redis.keys.outcome(taskId));
    }
    const replies = (await pipeline.exec()) ?? [];
    return new Set(
      taskIds.filter((_, i) => {
        const [jobError, fields] = replies[2 * i] ?? [];
        const [outcomeError, delivered] = replies[2 * i + 1] ?? [];
        const [timestamp, finishedOn] = (fields as (string | null)[] | undefined) ?? [];
        if (jobError || outcomeError) return false;
        return timestamp != null && finishedOn == null && delivered === 0;
      }),
    );
  }
}
