import { PayloadOf, QueueName, TaskJobResult } from '@gateway/queue';
import { Injectable } from '@nestjs/common';
import { Job } from 'bullmq';
import { EmbeddingsTaskService } from '../tasks/embeddings-task.service';
import { TaskProcessor } from '../tasks/task-processor';
import { TaskRunner } from '../tasks/task-runner.service';

@Injectable()
export class EmbeddingsProcessor implements TaskProcessor<QueueName.Embeddings> {
  readonly queue = QueueName.Embeddings;

  constructor(private readonly runner: TaskRunner, private readonly embeddings: EmbeddingsTaskService) {}

  process(job: Job<PayloadOf<QueueName.Embeddings>>): Promise<TaskJobResult> {
    return this.runner.run(this.queue, job, (payload) => this.embeddings.execute(payload));
  }
}
