import type { SerializedError } from '@gateway/common';
import {
  ChatFeature,
  ChatRequestBody,
  Endpoint,
  ENDPOINTS,
  ResponsesEcho,
  TaskIdentity,
  UpstreamResponsesRequest,
} from '@gateway/contracts';

/**
 * Every queue of the system: one per task endpoint, named by the endpoints table, and the worker's own two. A
 * worker refuses to boot when a queue it serves has no processor.
 */
export const QueueName = {
  ImageEdit: ENDPOINTS.imageEdit.queue,
  Chat: ENDPOINTS.chat.queue,
  Embeddings: ENDPOINTS.embeddings.queue,
  Webhooks: 'webhooks',
  Maintenance: 'maintenance',
} as const;
export type QueueName = (typeof QueueName)[keyof typeof QueueName];
/** Each queue's name as a type, as in `QueueProcessor<QueueName.Webhooks>`. */
export declare namespace QueueName {
  export type ImageEdit = typeof QueueName.ImageEdit;
  export type Chat = typeof QueueName.Chat;
  export type Embeddings = typeof QueueName.Embeddings;
  export type Webhooks = typeof QueueName.Webhooks;
  export type Maintenance = typeof QueueName.Maintenance;
}

/** The queues whose jobs are API tasks answered to a waiting caller. */
export type TaskQueueName = Endpoint['queue'];
/** Once each: several endpoints may share a queue (chat and responses). */
export const TASK_QUEUES: readonly TaskQueueName[] = [
  ...new Set(Object.values(ENDPOINTS).map((endpoint) => endpoint.queue)),
];

/** What an admitted request holds until its task ends: a concurrency slot and reserved tokens (docs/contracts.md, limits). */
export interface Admission {
  leaseId?: string;
  reservedTokens?: number;
  /** Money held against the application's and its owner's budgets until the task's real cost is known. */
  budget?: BudgetHold;
}

/** A request's worst-case cost, reserved in each budget counter it was admitted against (LimitsService). */
export interface BudgetHold {
  reservedNanos: number;
  counters: BudgetCounter[];
}

/** One budget's counter for the period the request was admitted in: a correction lands in that period. */
export interface BudgetCounter {
  key: string;
  scope: 'application' | 'user';
  period: 'day' | 'month';
  /** `YYYY-MM-DD` or `YYYY-MM`, UTC. */
  periodId: string;
  amountNanos: number;
}

/** A budget whose spending reached 80 % or 100 % when a task settled (once each per period). */
export interface BudgetCrossing extends Omit<BudgetCounter, 'key'> {
  threshold: 80 | 100;
  spentNanos: number;
}

/** What every task job carries besides its request: who asked (TaskIdentity), and where to answer. */
export interface TaskEnvelope extends TaskIdentity {
  /** Limits held by this task, released by whichever process ends it. */
  admission?: Admission;
  /** Reply channel of the api instance holding the connection (absent for async tasks). */
  replyTo?: string;
  /** The application has a callback URL: the worker enqueues a webhook once the task is final. */
  notify?: boolean;
  /** The application keeps bodies (`log_bodies`): the worker stores this task's request and response for that many days. */
  bodies?: { retentionDays: number };
  /**
   * The W3C `traceparent` of the api's request span, with tracing on: the worker's spans continue that trace
   * (docs/operations.md, "Tracing").
   */
  traceparent?: string;
}

export interface EmbeddingsJob extends TaskEnvelope {
  input: string[];
  encodingFormat: 'float' | 'base64';
  dimensions: number;
  user?: string;
}

export interface ChatJob extends TaskEnvelope {
  /** The request as the caller sent it, validated, less `model`, `stream` and `stream_options`. */
  request: ChatRequestBody;
  /** What the request needs of a route (ChatFeature), worked out once by the api. */
  features: ChatFeature[];
  /** Stream the answer as chunks (ChunkStreams) as well as answering the whole completion. */
  stream?: { includeUsage: boolean };
  /** A POST /v1/responses task: answered as a `response` object (and its stream events), not a chat.completion. */
  responses?: ResponsesJob;
}

/** What the worker needs to answer a chat task in the Responses shape. */
export interface ResponsesJob {
  /** The request fields every response object repeats. */
  echo: ResponsesEcho;
  /**
   * With `store`: keep the conversation for `previous_response_id`, i.e. `request.messages` from this index on (the
   * instructions before it are not carried over, as OpenAI does).
   */
  keepFrom?: number;
  /**
   * The request as an upstream with the Responses endpoint is sent it; present when a route of the model has one
   * (catalog `responses`). Routes without it get `request`, its translation.
   */
  upstream?: UpstreamResponsesRequest;
}

/**
 * Where a request image waits for the worker. Job data lives in Redis in clear text, so only small images ride
 * inline; larger ones wait in the GridFS `inputs` bucket and URLs are fetched by the worker (SSRF-guarded).
 */
export type ImageInputRef = { inline: string } | { stored: string } | { url: string };

export interface ImageEditJob extends TaskEnvelope {
  /** 1–3 images in request order (图1, 图2, 图3). */
  images: ImageInputRef[];
  /** Where each image sat in input.messages[0].content, so an error names the item the caller wrote. */
  imageIndexes: number[];
  /** The instruction, already cut to 800 code points. */
  prompt: string;
  negativePrompt?: string;
  n: number;
  size?: { width: number; height: number };
  /** Absent for models that cannot rewrite prompts: nothing is sent for it then. */
  promptExtend?: boolean;
  /** Chosen by the api when the caller sent none, so a retried job repeats the same images. */
  seed: number;
  watermark: boolean;
  /** Origin the signed file URLs are built on (PUBLIC_BASE_URL or the one the caller used). */
  publicBaseUrl: string;
}

export interface WebhookJob {
  appId: string;
  /** The task the event is about; for a budget event, the task whose cost crossed the threshold. */
  taskId: string;
  event: 'task.succeeded' | 'task.failed' | 'budget.warning' | 'budget.exhausted';
  /** Budget events carry what crossed, as it stood then. */
  budget?: BudgetCrossing;
  /** Sent again from the console: delivered even if the callback was disabled by a 410. */
  redelivery?: boolean;
  /** The `traceparent` of the task's span, with tracing on: the delivery is a span of the task's trace. */
  traceparent?: string;
}

export interface MaintenanceJob {
  kind: 'expire-files';
}

/** The `param` naming an image of the request in errors, wherever it turns out bad (api or worker). */
export function imageParam(contentIndex: number): string {
  return `input.messages[0].content[${contentIndex}].image`;
}

/** A task's stored request images, deleted once the task is final. */
export function storedInputsOf(job: ImageEditJob): string[] {
  return job.images.flatMap((image) => ('stored' in image ? [image.stored] : []));
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
export type TaskOutcome = (
  | {
      ok: true;
      body: string;
      usage?: TaskUsage;
      provider: string;
      /** The catalog route key that served, never an address or key: the api's X-Gateway-Route header. */
      route?: string;
      providerMs: number;
    }
  | { ok: false; error: SerializedError; providerMs: number }
) & {
  /**
   * What the task cost, in integer nanos of the catalog currency, and when it ran (epoch ms), so a task read before
   * its record exists shows them too.
   */
  costNanos?: number;
  startedAt?: number;
  finishedAt?: number;
};

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
