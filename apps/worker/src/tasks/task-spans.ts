import { traceparentOf, Tracing } from '@gateway/common';
import { TaskEnvelope } from '@gateway/queue';
import { Context, context, ROOT_CONTEXT, Span, SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { Job } from 'bullmq';

/**
 * One task job's part of its trace (docs/operations.md, "Tracing"): the wait in the queue, from the job's enqueue time
 * to its pick-up, then the task, under which each stage is a span. Made only for a job whose request was traced.
 */
export class TaskSpans {
  private constructor(
    private readonly tracing: Tracing,
    private readonly task: Span,
    private readonly taskContext: Context,
  ) {}

  /** The spans of a job that carries a `traceparent` while tracing is on; undefined otherwise, and nothing is made. */
  static begin(tracing: Tracing, queue: string, job: Job<TaskEnvelope>, pickedUpAt: number): TaskSpans | undefined {
    const carried = job.data.traceparent;
    if (!tracing.enabled || !carried) return undefined;
    const attributes = { 'messaging.destination.name': queue, 'gateway.task_id': job.data.taskId };
    let parent: Context | string = carried;
    // A rerun's wait is BullMQ's backoff, not the queue's: only the first pick-up has a queue wait.
    if (job.attemptsStarted <= 1) {
      // Dates, not numbers: OpenTelemetry reads a number before this process started as a performance.now() time.
      const wait = tracing.start(`${queue} queue wait`, { startTime: new Date(job.timestamp), attributes }, carried);
      wait.span.end(new Date(pickedUpAt));
      parent = wait.context;
    }
    const task = tracing.start(
      `${queue} task`,
      {
        kind: SpanKind.CONSUMER,
        startTime: new Date(pickedUpAt),
        attributes: { ...attributes, 'gateway.attempt': job.attemptsStarted },
      },
      parent,
    );
    return new TaskSpans(tracing, task.span, task.context);
  }

  /** The task's `traceparent`, carried on to its record and webhook. */
  get traceparent(): string {
    return traceparentOf(this.task);
  }

  /** Runs the job inside the task's span: its stages and log lines belong to the trace. */
  async run<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await context.with(this.taskContext, work);
    } catch (error) {
      this.task.setStatus({ code: SpanStatusCode.ERROR, message: (error as Error).message });
      throw error;
    } finally {
      this.task.end();
    }
  }

  /** One stage as a child span of the task; calls it makes (the provider's HTTP) are spans under it. */
  async stage<T>(name: string, work: () => Promise<T>): Promise<T> {
    const { span, context: stageContext } = this.tracing.start(name, {}, this.taskContext);
    try {
      return await context.with(stageContext, work);
    } catch (error) {
      span.setStatus({ code: SpanStatusCode.ERROR, message: (error as Error).message });
      throw error;
    } finally {
      span.end();
    }
  }
}

/** Runs a stage in its span when the task is traced, and as it is otherwise. */
export function inStage<T>(spans: TaskSpans | undefined, name: string, work: () => Promise<T>): Promise<T> {
  return spans ? spans.stage(name, work) : work();
}

/** Runs work that serves many tasks (a batch's timer) in no task's context, when this one is traced. */
export function outsideTrace(spans: TaskSpans | undefined, work: () => void): void {
  if (spans) context.with(ROOT_CONTEXT, work);
  else work();
}
