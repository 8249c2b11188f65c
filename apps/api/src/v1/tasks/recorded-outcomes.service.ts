import { TasksRepository } from '@gateway/db';
import { TaskOutcome, TaskOutcomeSource } from '@gateway/queue';
import { Injectable } from '@nestjs/common';

/** The stored outcome of a finished task, for the reply channel's safety net. */
@Injectable()
export class RecordedOutcomes implements TaskOutcomeSource {
  constructor(private readonly tasks: TasksRepository) {}

  async findOutcome(taskId: string): Promise<TaskOutcome | null> {
    const record = await this.tasks.findById(taskId);
    if (record?.status === 'succeeded') {
      return { ok: true, body: record.result ?? {}, provider: record.provider ?? '', providerMs: record.providerMs ?? 0 };
    }
    if (record?.status === 'failed' && record.error) return { ok: false, error: record.error, providerMs: record.providerMs ?? 0 };
    return null;
  }
}
