import { AppConfig, LOGGER } from '@gateway/common';
import { ImageStore } from '@gateway/imaging';
import { PayloadOf, QueueName, storedInputsOf, TaskJobResult } from '@gateway/queue';
import { Inject, Injectable } from '@nestjs/common';
import { Job, UnrecoverableError } from 'bullmq';
import { Logger } from 'pino';
import { ImageEditTaskService } from '../tasks/image-edit-task.service';
import { TaskProcessor } from '../tasks/task-processor';
import { TaskRunner } from '../tasks/task-runner.service';

@Injectable()
export class ImageEditProcessor implements TaskProcessor<QueueName.ImageEdit> {
  readonly queue = QueueName.ImageEdit;
  readonly concurrency: number;

  constructor(
    config: AppConfig,
    private readonly runner: TaskRunner,
    private readonly edits: ImageEditTaskService,
    private readonly store: ImageStore,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {
    this.concurrency = config.IMAGE_EDIT_CONCURRENCY;
  }

  async process(job: Job<PayloadOf<QueueName.ImageEdit>>): Promise<TaskJobResult> {
    let final = true;
    try {
      return await this.runner.run(this.queue, job, (payload) => this.edits.execute(payload));
    } catch (error) {
      // A retryable failure runs again and needs its inputs; a final one (UnrecoverableError, last attempt) does not.
      final = error instanceof UnrecoverableError || job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
      throw error;
    } finally {
      if (final) await this.discardInputs(job.data);
    }
  }

  private async discardInputs(data: PayloadOf<QueueName.ImageEdit>): Promise<void> {
    const stored = storedInputsOf(data);
    if (stored.length === 0) return;
    // The maintenance sweep deletes what this misses once IMAGE_INPUT_TTL has passed.
    await this.store.deleteInputs(stored).catch((error) => this.logger.warn({ taskId: data.taskId, err: (error as Error).message }, 'could not delete stored inputs'));
  }
}
