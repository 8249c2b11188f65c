import type { FiledBill } from '@gateway/db';
import type { UpstreamAttempt } from '@gateway/contracts';
import type { PayloadOf, TaskQueueName, TaskUsage } from '@gateway/queue';

/** What a task service produced: the caller's response body (JSON text, serialised once) and what it consumed. */
export interface ExecutedTask {
  body: string;
  usage: TaskUsage;
  provider: string;
  /** The catalog route that served (`<upstream>:<model>`, `local:<model>`), answered as X-Gateway-Route. */
  route?: string;
  providerMs: number;
  /** Integer nanos of the catalog currency (@gateway/common money). */
  costNanos: number;
  /**
   * An image edit's delivered images, each billed with the task's record (FiledBill): its output index, the route
   * whose call made it (absent when stored by an earlier run) and its unit price.
   */
  billedImages?: (FiledBill & { route?: string })[];
  /** A stored response's conversation (JSON text), recorded beside the body for `previous_response_id`. */
  conversation?: string;
}

/** Does the work of one task queue's jobs; TaskRunner settles, delivers and records around it. */
export interface TaskService<Q extends TaskQueueName> {
  /** `upstreamCalls` collects the upstream calls made, for the task record (passed on to ProviderRouter). */
  execute(payload: PayloadOf<Q>, upstreamCalls?: UpstreamAttempt[]): Promise<ExecutedTask>;
  /** Frees what a job kept for its reruns, once it will not run again (stored request images, say). */
  cleanUp?(payload: PayloadOf<Q>): Promise<void>;
}
