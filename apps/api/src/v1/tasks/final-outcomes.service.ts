import { TasksRepository } from '@gateway/db';
import { OutcomeDelivery } from '@gateway/ledger';
import { OutcomeLookup, TaskOutcome } from '@gateway/queue';
import { Injectable } from '@nestjs/common';

/**
 * A finished task's outcome, delivered (Redis) or recorded (MongoDB): for the re-check of lost replies
 * (ReplyWaiters) and for replaying an Idempotency-Key.
 */
@Injectable()
export class FinalOutcomes implements OutcomeLookup {
  constructor(
    private readonly delivered: OutcomeDelivery,
    private readonly tasks: TasksRepository,
  ) {}

  async findOutcome(taskId: string): Promise<TaskOutcome | null> {
    const final = await this.findFinal(taskId);
    return final === 'cancelled' ? null : final;
  }

  /** Like findOutcome, and tells a task that never ran (its caller left before pick-up) from one still running. */
  async findFinal(taskId: string): Promise<TaskOutcome | 'cancelled' | null> {
    const outcome = await this.delivered.read(taskId);
    if (outcome) return outcome;
    const record = await this.tasks.findById(taskId);
    if (record?.status === 'succeeded') {
      const body = await this.tasks.findResult(taskId);
      return {
        ok: true,
        body: body ?? '{}',
        provider: record.provider ?? '',
        ...(record.route ? { route: record.route } : {}),
        providerMs: record.providerMs ?? 0,
      };
    }
    if (record?.status === 'failed' && record.error)
      return { ok: false, error: record.error, providerMs: record.providerMs ?? 0 };
    if (record?.status === 'cancelled') return 'cancelled';
    return null;
  }
}
