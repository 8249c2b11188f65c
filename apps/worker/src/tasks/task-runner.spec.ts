import { GatewayError } from '@gateway/common';
import { TasksRepository } from '@gateway/db';
import { UsageRollups } from '@gateway/metering';
import { MetricsService } from '@gateway/metrics';
import { EmbeddingsJob, OutcomeDelivery, QueueName, TaskOutcome } from '@gateway/queue';
import { LimitsService } from '@gateway/tenancy';
import { WebhookJobs } from '@gateway/webhooks';
import { Job, UnrecoverableError } from 'bullmq';
import pino from 'pino';
import { ExecutedTask, TaskService } from './task-service';
import { TaskRunner } from './task-runner.service';

/** Every side effect of a run, in the order it happened. */
type Step =
  | ['settle', number]
  | ['deliver', TaskOutcome]
  | ['record', Record<string, unknown>]
  | ['webhook', string]
  | ['forget']
  | ['rollup', Record<string, number>];

function fakes(steps: Step[]) {
  return {
    tasks: { record: async (task: Record<string, unknown>) => void steps.push(['record', task]) },
    outcomes: {
      deliver: async (_taskId: string, outcome: TaskOutcome) => void steps.push(['deliver', outcome]),
      forget: async () => void steps.push(['forget']),
    },
    limits: {
      settle: async (_appId: string, _admission: unknown, tokens: number) => void steps.push(['settle', tokens]),
    },
    rollups: { add: (_key: unknown, counts: Record<string, number>) => void steps.push(['rollup', counts]) },
    webhookJobs: {
      enqueue: async (_appId: string, _taskId: string, event: string) => void steps.push(['webhook', event]),
    },
  };
}

const payload: EmbeddingsJob = {
  taskId: 'task_1',
  appId: 'app_1',
  requestId: 'req_1',
  model: 'text-embedding-v4',
  resolvedModel: 'text-embedding-v4',
  endpoint: '/v1/embeddings',
  replyTo: 'reply:api_1',
  notify: true,
  createdAt: Date.parse('2026-11-24T10:00:00Z'),
  input: ['hello'],
  encodingFormat: 'float',
  dimensions: 1024,
};

/** A BullMQ job as a worker holds it on its `attempt`th try of `attempts`. */
function jobOn(attempt: number, attempts = 3): Job<EmbeddingsJob> {
  return {
    data: payload,
    timestamp: Date.now(),
    attemptsStarted: attempt,
    attemptsMade: attempt - 1,
    opts: { attempts },
  } as unknown as Job<EmbeddingsJob>;
}

const executed: ExecutedTask = {
  body: '{"data":[]}',
  usage: { prompt_tokens: 5, completion_tokens: 0, total_tokens: 5 },
  provider: 'primary',
  providerMs: 12,
  cost: 0.0001,
};

/** A task service that does only `execute`. */
const serviceDoing = (execute: () => Promise<ExecutedTask>): TaskService<typeof QueueName.Embeddings> => ({ execute });

describe('TaskRunner', () => {
  let steps: Step[];
  let runner: TaskRunner;

  beforeEach(() => {
    steps = [];
    const f = fakes(steps);
    runner = new TaskRunner(
      f.tasks as unknown as TasksRepository,
      f.outcomes as unknown as OutcomeDelivery,
      f.limits as unknown as LimitsService,
      f.rollups as unknown as UsageRollups,
      new MetricsService(),
      f.webhookJobs as unknown as WebhookJobs,
      pino({ level: 'silent' }),
    );
  });

  const names = () => steps.map(([name]) => name);

  it('settles the limits, answers the caller, then records, announces and counts a success', async () => {
    await expect(
      runner.runTask(
        QueueName.Embeddings,
        jobOn(1),
        serviceDoing(async () => executed),
      ),
    ).resolves.toEqual({
      status: 'succeeded',
    });
    expect(names()).toEqual(['settle', 'deliver', 'record', 'webhook', 'forget', 'rollup']);
    expect(steps[0]).toEqual(['settle', 5]);
    expect(steps[1][1]).toMatchObject({ ok: true, body: executed.body, provider: 'primary', cost: 0.0001 });
    expect(steps[2][1]).toMatchObject({
      _id: 'task_1',
      status: 'succeeded',
      attempts: 1,
      result: executed.body,
      day: '2026-11-24',
    });
    expect(steps[3]).toEqual(['webhook', 'task.succeeded']);
    expect(steps[5][1]).toMatchObject({ calls: 1, errors: 0, promptTokens: 5 });
  });

  it('takes a GatewayError as the final answer at once, with attempts left', async () => {
    const refused = runner.runTask(
      QueueName.Embeddings,
      jobOn(1),
      serviceDoing(async () => {
        throw new GatewayError('InvalidParameter', 'dimensions must be one of 1024', { param: 'dimensions' });
      }),
    );
    await expect(refused).rejects.toBeInstanceOf(UnrecoverableError);
    expect(names()).toEqual(['settle', 'deliver', 'record', 'webhook', 'forget', 'rollup']);
    expect(steps[1][1]).toMatchObject({ ok: false, error: { code: 'InvalidParameter', param: 'dimensions' } });
    expect(steps[2][1]).toMatchObject({ status: 'failed', error: { code: 'InvalidParameter' } });
    expect(steps[3]).toEqual(['webhook', 'task.failed']);
    expect(steps[5][1]).toMatchObject({ calls: 1, errors: 1 });
  });

  it('hands any other error back to BullMQ for a retry, touching nothing, while attempts are left', async () => {
    const crashed = runner.runTask(
      QueueName.Embeddings,
      jobOn(2, 3),
      serviceDoing(async () => {
        throw new Error('socket hang up');
      }),
    );
    await expect(crashed).rejects.toThrow('socket hang up');
    expect(steps).toEqual([]);
  });

  it('answers an InternalError without internals when the last attempt fails', async () => {
    const crashed = runner.runTask(
      QueueName.Embeddings,
      jobOn(3, 3),
      serviceDoing(async () => {
        throw new Error('secret detail at /srv/app.js:12');
      }),
    );
    await expect(crashed).rejects.toBeInstanceOf(UnrecoverableError);
    const delivered = steps.find(([name]) => name === 'deliver')![1] as TaskOutcome;
    expect(delivered).toMatchObject({
      ok: false,
      error: { code: 'InternalError', message: 'the task failed inside the gateway' },
    });
    expect(JSON.stringify(delivered)).not.toContain('secret detail');
    expect(steps.find(([name]) => name === 'record')![1]).toMatchObject({ status: 'failed', attempts: 3 });
  });

  it('enqueues no webhook for an application without a callback URL', async () => {
    const quiet = { ...jobOn(1), data: { ...payload, notify: false } } as unknown as Job<EmbeddingsJob>;
    await runner.runTask(
      QueueName.Embeddings,
      quiet,
      serviceDoing(async () => executed),
    );
    expect(names()).not.toContain('webhook');
  });

  it('lets a task service free what a job kept for its reruns only once the job will not run again', async () => {
    const cleanUp = jest.fn(() => Promise.resolve());
    const crashing = { execute: () => Promise.reject(new Error('socket hang up')), cleanUp };
    await expect(runner.runTask(QueueName.Embeddings, jobOn(2, 3), crashing)).rejects.toThrow('socket hang up');
    expect(cleanUp).not.toHaveBeenCalled();
    await expect(runner.runTask(QueueName.Embeddings, jobOn(3, 3), crashing)).rejects.toBeInstanceOf(
      UnrecoverableError,
    );
    expect(cleanUp).toHaveBeenCalledWith(payload);
    await runner.runTask(QueueName.Embeddings, jobOn(1), { execute: () => Promise.resolve(executed), cleanUp });
    expect(cleanUp).toHaveBeenCalledTimes(2);
  });
});
