import { InjectQueue } from '@nestjs/bullmq';
import { Injectable, OnModuleInit } from '@nestjs/common';
import { QueueName } from '@gateway/queue';
import { Queue } from 'bullmq';
import { MetricsService } from '../metrics.service';

const STATES = ['waiting', 'active', 'delayed', 'failed', 'completed', 'prioritized'] as const;

/** Queue depth per state, and the workers connected to each queue, read from Redis when Prometheus scrapes. */
@Injectable()
export class QueueDepthCollector implements OnModuleInit {
  private readonly queues: Queue[];

  constructor(
    private readonly metrics: MetricsService,
    @InjectQueue(QueueName.Embeddings) embeddings: Queue,
    @InjectQueue(QueueName.Chat) chat: Queue,
    @InjectQueue(QueueName.ImageEdit) imageEdit: Queue,
    @InjectQueue(QueueName.Webhooks) webhooks: Queue,
  ) {
    this.queues = [embeddings, chat, imageEdit, webhooks];
  }

  onModuleInit(): void {
    this.metrics.onScrape(async () => {
      for (const queue of this.queues) {
        const counts = await queue.getJobCounts(...STATES);
        for (const state of STATES) this.metrics.queueJobs.set({ queue: queue.name, state }, counts[state] ?? 0);
      }
    });
    // Apart, so that a Redis refusing CLIENT LIST (an ACL, some managed services) leaves the depths above alone.
    // BullMQ names each worker's blocking connection after its queue; every process sees every worker.
    this.metrics.onScrape(async () => {
      for (const queue of this.queues)
        this.metrics.queueWorkers.set({ queue: queue.name }, await queue.getWorkersCount());
    });
  }
}
