import { GatewayError, Tracing } from '@gateway/common';
import { MetricsService } from '@gateway/metrics';
import { FinishedTask, OutcomeDelivery } from '@gateway/ledger';
import { EmbeddingsJob, QueueName, TaskOutcome } from '@gateway/queue';
import { LimitsService } from '@gateway/tenancy';
import { WebhookJobs } from '@gateway/webhooks';
import { Job, UnrecoverableError } from 'bullmq';
import pino from 'pino';
import { TaskBodyKeeper } from './bodies/task-body-keeper.service';
import { ExecutedTask, TaskService } from './task-service';
import { TaskRunner } from './task-runner.service';

/** Every side effect of a run, in the order it happened. */
type Step = ['settle', number] | ['deliver', FinishedTask] | ['readDelivered', string];

/** `earlier`: an earlier run of the job delivered (its mark is on the job; a second delivery is refused). */
function fakes(steps: Step[], earlier?: TaskOutcome) {
  return {
    delivery: {
      deliver: async (task: FinishedTask) => {
        steps.push(['deliver', task]);
        return !earlier;
      },
      wasDelivered: async () => earlier !== undefined,
      read: async (taskId: string) => {
        steps.push(['readDelivered', taskId]);
        return earlier ?? null;
      },
    },
    limits: {
      settle: async (_appId: string, _admission: unknown, tokens: number) => {
        steps.push(['settle', tokens]);
        return [];
      },
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
    id: 'task_1',
    queueQualifiedName: 'gw:embeddings',
  } as unknown as Job<EmbeddingsJob>;
}

const executed: ExecutedTask = {
  body: '{"data":[]}',
  usage: { prompt_tokens: 5, completion_tokens: 0, total_tokens: 5 },
  provider: 'primary',
  providerMs: 12,
  costNanos: 100_000,
};

/** A task service that does only `execute`. */
const serviceDoing = (execute: () => Promise<ExecutedTask>): TaskService<typeof QueueName.Embeddings> => ({ execute });

describe('TaskRunner', () => {
  let steps: Step[];
  let runner: TaskRunner;

  const runnerWith = (f: ReturnType<typeof fakes>) =>
    new TaskRunner(
      f.delivery as unknown as OutcomeDelivery,
      f.limits as unknown as LimitsService,
      {} as WebhookJobs,
      new MetricsService(),
      pino({ level: 'silent' }),
      { keepSoon: () => undefined } as unknown as TaskBodyKeeper,
      Tracing.off(),
    );

  beforeEach(() => {
    steps = [];
    runner = runnerWith(fakes(steps));
  });

  const names = () => steps.map(([name]) => name);

  it('settles the limits, then delivers the outcome with the filed record and the usage', async () => {
    // Admitted 1.5 s ago: its latency falls in the 2,500 ms bucket however slow this machine runs the test.
    const job = jobOn(1);
    job.timestamp = Date.now() - 1_500;
    await expect(
      runner.runTask(
        QueueName.Embeddings,
        job,
        serviceDoing(async () => executed),
      ),
    ).resolves.toEqual({
      status: 'succeeded',
    });
    expect(names()).toEqual(['settle', 'deliver']);
    expect(steps[0]).toEqual(['settle', 5]);
    const delivered = steps[1][1] as FinishedTask;
    expect(delivered).toMatchObject({ taskId: 'task_1', jobKey: 'gw:embeddings:task_1', replyTo: 'reply:api_1' });
    expect(delivered.outcome).toMatchObject({ ok: true, body: executed.body, provider: 'primary', costNanos: 100_000 });
    expect(delivered.usage).toEqual({
      'app_1|text-embedding-v4|2026-11-24|calls': 1,
      'app_1|text-embedding-v4|2026-11-24|errors': 0,
      'app_1|text-embedding-v4|2026-11-24|promptTokens': 5,
      'app_1|text-embedding-v4|2026-11-24|completionTokens': 0,
      'app_1|text-embedding-v4|2026-11-24|images': 0,
      'app_1|text-embedding-v4|2026-11-24|costNanos': 100_000,
      'app_1|text-embedding-v4|2026-11-24|lat2500': 1,
    });
    expect(delivered.day).toBe('2026-11-24');
    expect(JSON.parse(delivered.record)).toMatchObject({
      record: { _id: 'task_1', status: 'succeeded', attempts: 1, costNanos: 100_000, day: '2026-11-24' },
      notify: true,
    });
  });

  it('does not run a task again when a rerun finds its job delivered: it ends as the delivered outcome', async () => {
    const earlier: TaskOutcome = { ok: true, body: '{"data":[1]}', provider: 'primary', providerMs: 3 };
    runner = runnerWith(fakes(steps, earlier));
    const execute = jest.fn(async () => executed);
    await expect(runner.runTask(QueueName.Embeddings, jobOn(2), { execute })).resolves.toEqual({ status: 'succeeded' });
    expect(execute).not.toHaveBeenCalled();
    expect(steps).toEqual([['readDelivered', 'task_1']]);
  });

  it('ends a rerun of a delivered failure as a failure again', async () => {
    const failure = new GatewayError('InvalidParameter', 'bad input').toJSON();
    runner = runnerWith(fakes(steps, { ok: false, error: failure, providerMs: 0 }));
    await expect(
      runner.runTask(
        QueueName.Embeddings,
        jobOn(2),
        serviceDoing(async () => executed),
      ),
    ).rejects.toBeInstanceOf(UnrecoverableError);
  });

  it('ends as the earlier delivery when a delivery is refused as a repeat', async () => {
    runner = runnerWith(fakes(steps, { ok: true, body: '{}', provider: 'primary', providerMs: 0 }));
    // A first attempt that was already delivered by an earlier worker (the mark came after wasDelivered was asked).
    await runner.runTask(
      QueueName.Embeddings,
      jobOn(1),
      serviceDoing(async () => executed),
    );
    expect(names()).toEqual(['settle', 'deliver', 'readDelivered']);
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
    expect(names()).toEqual(['settle', 'deliver']);
    const delivered = steps[1][1] as FinishedTask;
    expect(delivered.outcome).toMatchObject({ ok: false, error: { code: 'InvalidParameter', param: 'dimensions' } });
    expect(delivered.usage).toMatchObject({
      'app_1|text-embedding-v4|2026-11-24|calls': 1,
      'app_1|text-embedding-v4|2026-11-24|errors': 1,
    });
    expect(JSON.parse(delivered.record)).toMatchObject({
      record: { status: 'failed', error: { code: 'InvalidParameter' } },
    });
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
    const finished = steps.find(([name]) => name === 'deliver')![1] as FinishedTask;
    const delivered = finished.outcome;
    expect(delivered).toMatchObject({
      ok: false,
      error: { code: 'InternalError', message: 'the task failed inside the gateway' },
    });
    expect(JSON.stringify(delivered)).not.toContain('secret detail');
    expect(JSON.parse(finished.record)).toMatchObject({ record: { status: 'failed', attempts: 3 } });
  });

  it('files no webhook for an application without a callback URL', async () => {
    const quiet = { ...jobOn(1), data: { ...payload, notify: false } } as unknown as Job<EmbeddingsJob>;
    await runner.runTask(
      QueueName.Embeddings,
      quiet,
      serviceDoing(async () => executed),
    );
    expect(JSON.parse((steps[1][1] as FinishedTask).record)).toMatchObject({ notify: false });
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
