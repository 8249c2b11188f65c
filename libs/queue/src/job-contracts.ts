import type { SerializedError } from '@gateway/common';

/** Every queue of the system. A worker refuses to boot when a queue it serves has no processor. */
export enum QueueName {
  ImageEdit = 'image-edit',
  Chat = 'chat',
  Embeddings = 'embeddings',
  Webhooks = 'webhooks',
  Maintenance = 'maintenance',
}

/** The queues whose jobs are API tasks answered to a waiting caller. */
export const TASK_QUEUES = [QueueName.Embeddings, QueueName.Chat, QueueName.ImageEdit] as const;
export type TaskQueueName = (typeof TASK_QUEUES)[number];

/** What an admitted request holds until its task ends: a concurrency slot and reserved tokens (DESIGN §4 limits). */
export interface Admission {
  leaseId?: string;
  reservedTokens?: number;
}

/** What every task job carries besides its request: who asked, and where to answer. */
export interface TaskEnvelope {
  taskId: string;
  appId: string;
  requestId: string;
  /** Public model id as requested, and the catalog id it resolved to. */
  model: string;
  resolvedModel: string;
  endpoint: string;
  /** Limits held by this task, released by whichever process ends it. */
  admission?: Admission;
  /** Reply channel of the api instance holding the connection (absent for async tasks). */
  replyTo?: string;
  createdAt: number;
}

export interface EmbeddingsJob extends TaskEnvelope {
  input: string[];
  encodingFormat: 'float' | 'base64';
  dimensions: number;
  user?: string;
}

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
  name?: string;
}

export interface ChatJob extends TaskEnvelope {
  messages: ChatMessage[];
  maxTokens?: number;
  temperature?: number;
  topP?: number;
  stop?: string[];
  seed?: number;
  user?: string;
}

/** Image editing lands with its own issue; the contract is reserved so the catalogue is complete. */
export interface ImageEditJob extends TaskEnvelope {
  request: Record<string, unknown>;
}

export interface WebhookJob {
  appId: string;
  taskId: string;
  event: 'task.succeeded' | 'task.failed';
}

export interface MaintenanceJob {
  kind: 'expire-files';
}

export interface TaskUsage {
  prompt_tokens: number;
  completion_tokens?: number;
  total_tokens: number;
  images?: number;
}

/**
 * What a finished task answers: the response body as JSON text (serialised once by the worker, then sent and
 * stored verbatim), or the error.
 */
export type TaskOutcome =
  | { ok: true; body: string; usage?: TaskUsage; provider: string; providerMs: number }
  | { ok: false; error: SerializedError; providerMs: number };

/** What a task job returns to BullMQ: only the status; the outcome itself is delivered and recorded elsewhere. */
export interface TaskJobResult {
  status: 'succeeded';
}

export interface JobContracts {
  [QueueName.Embeddings]: { payload: EmbeddingsJob; result: TaskJobResult };
  [QueueName.Chat]: { payload: ChatJob; result: TaskJobResult };
  [QueueName.ImageEdit]: { payload: ImageEditJob; result: TaskJobResult };
  [QueueName.Webhooks]: { payload: WebhookJob; result: void };
  [QueueName.Maintenance]: { payload: MaintenanceJob; result: void };
}

export type PayloadOf<Q extends QueueName> = JobContracts[Q]['payload'];
export type ResultOf<Q extends QueueName> = JobContracts[Q]['result'];

