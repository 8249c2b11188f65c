import { PayloadOf, QueueName, TaskJobResult } from '@gateway/queue';
import { Injectable } from '@nestjs/common';
import { Job } from 'bullmq';
import { ChatTaskService } from '../tasks/chat-task.service';
import { TaskProcessor } from '../tasks/task-processor';
import { TaskRunner } from '../tasks/task-runner.service';

@Injectable()
export class ChatProcessor implements TaskProcessor<QueueName.Chat> {
  readonly queue = QueueName.Chat;

  constructor(private readonly runner: TaskRunner, private readonly chat: ChatTaskService) {}

  process(job: Job<PayloadOf<QueueName.Chat>>): Promise<TaskJobResult> {
    return this.runner.run(this.queue, job, (payload) => this.chat.execute(payload));
  }
}
