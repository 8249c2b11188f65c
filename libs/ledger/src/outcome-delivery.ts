import { decodeOutcome, encodeOutcome, TaskOutcome } from '@gateway/queue';
import { defineScript, GatewayRedis, RedisKeys } from '@gateway/redis';
import { Injectable } from '@nestjs/common';
import type Redis from 'ioredis';

/** The field a job's BullMQ hash gets once its outcome is delivered; the hash lives exactly as long as a rerun can. */
const DELIVERED_MARK = 'gwDelivered';

/**
 * A job's first delivery stores the outcome and the filed record, adds the task to the record stream, counts its
 * usage and answers the waiting api instance; a rerun of a job that already delivered (stalled after delivering) only
 * repeats the answer. KEYS: job hash, outcome, filed record, record stream, usage pending. ARGV: task id, outcome
 * text, reply channel or '', record JSON, the record's day, then usage field / amount pairs.
 */
const DELIVER = defineScript<
  [job: string, outcome: string, filedRecord: string, recordStream: string, usagePending: string],
  [taskId: string, outcome: string, replyTo: string, record: string, day: string, ...usage: (string | number)[]],
  0 | 1
>({
  name: 'deliverOutcome',
  keys: 5,
  lua: `
if redis.call('EXISTS', KEYS[1]) == 1 and redis.call('HSETNX', KEYS[1], '${DELIVERED_MARK}', 1) == 0 then
  local stored = redis.call('GET', KEYS[2])
  if stored and ARGV[3] ~= '' then redis.call('PUBLISH', ARGV[3], stored) end
  return 0
end
redis.call('SET', KEYS[2], ARGV[2])
redis.call('SET', KEYS[3], ARGV[4])
redis.call('XADD', KEYS[4], '*', 'task', ARGV[1], 'day', ARGV[5])
for i = 6, #ARGV, 2 do redis.call('HINCRBY', KEYS[5], ARGV[i], ARGV[i + 1]) end
if ARGV[3] ~= '' then redis.call('PUBLISH', ARGV[3], ARGV[2]) end
return 1`,
});

/** A finished task as its worker hands it over. */
export interface FinishedTask {
  taskId: string;
  /** The BullMQ hash of its job (`job.queueQualifiedName:job.id`): where a delivery is marked. */
  jobKey: string;
  outcome: TaskOutcome;
  /** Reply channel of the api instance holding the caller, if one is. */
  replyTo?: string;
  /** The task record's fields as JSON (fileRecord; no result body: that is the outcome's), for the record writer. */
  record: string;
  /** The record's UTC day (YYYY-MM-DD), which `gw usage:reconcile` asks of records still to be written. */
  day: string;
  /** Usage to count, by ledger field (usageFields), in integers. */
  usage: Record<string, number>;
}

/**
 * How a worker hands a finished task back (docs/decisions/exact-usage.md): in one Redis script it stores the
 * outcome, files the record and adds the task to the record stream (DeliveredTasks), counts its usage (UsageLedger)
 * and answers the waiting api instance. Marked on the job, so a task is counted once however often its job reruns;
 * the outcome stays until the record is written, however long MongoDB is away, and GET /v1/tasks reads it meanwhile.
 */
@Injectable()
export class OutcomeDelivery {
  private readonly redis: Redis;
  private readonly keys: RedisKeys;

  constructor(redis: GatewayRedis) {
    this.redis = redis.client;
    this.keys = redis.keys;
  }

  /** Delivers a task's outcome; false when an earlier run of its job did (the stored outcome is answered again). */
  async deliver(task: FinishedTask): Promise<boolean> {
    const usage = Object.entries(task.usage).flatMap(([field, amount]) => (amount ? [field, amount] : []));
    const delivered = await DELIVER.run(
      this.redis,
      [
        task.jobKey,
        this.keys.outcome(task.taskId),
        this.keys.filedRecord(task.taskId),
        this.keys.recordStream(),
        this.keys.usagePending(),
      ],
      [task.taskId, encodeOutcome(task.taskId, task.outcome), task.replyTo ?? '', task.record, task.day, ...usage],
    );
    return delivered === 1;
  }

  /** Whether an earlier run of this job delivered its outcome. */
  async wasDelivered(jobKey: string): Promise<boolean> {
    return (await this.redis.hexists(jobKey, DELIVERED_MARK)) === 1;
  }

  /** The delivered outcome, while its record is still to be written. */
  async read(taskId: string): Promise<TaskOutcome | null> {
    const text = await this.redis.get(this.keys.outcome(taskId));
    return text ? decodeOutcome(text).outcome : null;
  }
}
