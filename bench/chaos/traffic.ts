/**
 * The chaos bench's steady mixed load: a fixed number of clients, each sending one request after another to its
 * own api instance, as applications using the OpenAI SDK do. Every request carries a unique Idempotency-Key; on a
 * network error, a timeout, 408, 409, 429 or a 5xx it is retried twice with the same key (backoff 0.5 s, then 1 s),
 * on the other api instance when the failure was the network's. Each attempt and each task id the gateway hands
 * out is recorded, so the bench can check afterwards that nothing accepted was lost.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { Agent, request } from 'undici';
import { editBody } from '../../test/helpers/images';

export type OperationKind = 'embeddings' | 'chat' | 'async' | 'image';

/** What one HTTP attempt got: its status class, a network error, or no answer within the hung bound. */
export type AttemptOutcome = '200' | '202' | '4xx' | '5xx' | '504' | 'network' | 'hung' | 'aborted';

export interface Attempt {
  api: number;
  startedAt: number;
  endedAt: number;
  outcome: AttemptOutcome;
  status?: number;
  /** The error code of an error envelope, or the network error's. */
  code?: string;
  taskId?: string;
}

/** One logical request of a client, with all its attempts (and, in async mode, its polling). */
export interface Operation {
  id: number;
  client: number;
  kind: OperationKind;
  /** Index of the phase (fault) it belongs to: the one under way when it started. */
  phase: number;
  key: string;
  startedAt: number;
  endedAt?: number;
  attempts: Attempt[];
  /** Every task id the gateway named for this request, in a header or a body. */
  taskIds: Set<string>;
  /** Images in the 200 answer of an image edit. */
  images?: number;
  /** ok: answered 2xx (and, in async mode, the task succeeded); error: anything else; hung: no final answer. */
  final?: 'ok' | 'error' | 'hung' | 'aborted';
  /** Async mode: the task's last status read from GET /v1/tasks/{id}, and what polling met on the way. */
  taskStatus?: string;
  polls?: { answered: number; failed: number; statuses: Record<string, number> };
  /** A short account of why it ended badly. */
  note?: string;
}

export interface TrafficOptions {
  apiUrls: string[];
  clients: number;
  /** An attempt (or an async task's polling) with no answer after this long is hung: SYNC_TIMEOUT_MS + 5 s. */
  hungAfterMs: number;
  /** The phase traffic belongs to at this moment, and that phase's application key. */
  current: () => { phase: number; apiKey: string };
  /** A data URI of the input image of image edits. */
  image: string;
  imageModel: string;
  thinkMs?: [number, number];
  pollIntervalMs?: number;
}

/** The fields of the gateway's answers this client reads. */
interface AnswerBody {
  data?: unknown;
  status?: string;
  task_id?: unknown;
  error?: { code?: string; task_id?: unknown };
}

const RETRIES = 2;
const BACKOFF_MS = [500, 1000];
/** How long a client keeps away from an api instance that refused or dropped its connection. */
const AWAY_MS = 2000;
const KINDS: OperationKind[] = ['embeddings', 'chat', 'async', 'image'];

export class Traffic {
  readonly operations: Operation[] = [];
  private readonly agent = new Agent({
    keepAliveTimeout: 10_000,
    connections: 256,
    headersTimeout: 0,
    bodyTimeout: 0,
  });
  private readonly stopping = new AbortController();
  private readonly aborting = new AbortController();
  private readonly awayUntil: number[];
  private loops: Promise<void>[] = [];
  private nextId = 0;
  private readonly runId = Date.now().toString(36);

  constructor(private readonly options: TrafficOptions) {
    this.awayUntil = options.apiUrls.map(() => 0);
  }

  start(): void {
    this.loops = Array.from({ length: this.options.clients }, (_, client) => this.clientLoop(client));
  }

  /** Stops starting requests and waits for those under way: each is bounded by its attempts' hung limits. */
  async finish(): Promise<void> {
    this.stopping.abort();
    await Promise.all(this.loops);
  }

  /** Abandons every request under way at once (teardown after a failure), and closes the connections. */
  async abort(): Promise<void> {
    this.stopping.abort();
    this.aborting.abort();
    await Promise.all(this.loops);
    await this.agent.destroy().catch(() => undefined);
  }

  private async clientLoop(client: number): Promise<void> {
    const [minThink, maxThink] = this.options.thinkMs ?? [100, 300];
    for (let n = client; !this.stopping.signal.aborted; n++) {
      await this.runOperation(client, KINDS[n % KINDS.length]);
      await sleep(minThink + Math.random() * (maxThink - minThink), undefined, {
        signal: this.stopping.signal,
      }).catch(() => undefined);
    }
  }

  private async runOperation(client: number, kind: OperationKind): Promise<void> {
    const { phase, apiKey } = this.options.current();
    const id = this.nextId++;
    const operation: Operation = {
      id,
      client,
      kind,
      phase,
      key: `chaos-${this.runId}-${id}`,
      startedAt: Date.now(),
      attempts: [],
      taskIds: new Set(),
    };
    this.operations.push(operation);
    const { path, body } = this.requestOf(kind, id);
    const answer = await this.post(operation, path, body, apiKey, kind === 'async');
    if (kind === 'async' && answer?.status === 202 && answer.taskId) {
      await this.pollTask(operation, answer.taskId, apiKey);
    } else if (answer && answer.status < 300) {
      operation.final = 'ok';
      if (kind === 'image') operation.images = Array.isArray(answer.body?.data) ? answer.body.data.length : 0;
    } else {
      const last = operation.attempts[operation.attempts.length - 1];
      operation.final = last?.outcome === 'hung' ? 'hung' : last?.outcome === 'aborted' ? 'aborted' : 'error';
      operation.note = `last attempt: ${last?.outcome}${last?.code ? ` ${last.code}` : ''}`;
    }
    operation.endedAt = Date.now();
  }

  private requestOf(kind: OperationKind, id: number): { path: string; body: string } {
    const text = `chaos request ${this.runId} ${id}`;
    const embeddings = { path: '/v1/embeddings', body: { model: 'text-embedding-v4', input: text, dimensions: 64 } };
    const chat = {
      path: '/v1/chat/completions',
      body: { model: 'x-chat', messages: [{ role: 'user', content: text }], max_tokens: 16 },
    };
    const chosen =
      kind === 'embeddings'
        ? embeddings
        : kind === 'chat'
          ? chat
          : kind === 'async'
            ? id % 2 === 0
              ? embeddings
              : chat
            : {
                path: '/v1/images/edits',
                body: editBody(this.options.imageModel, [this.options.image], text, {
                  n: 2,
                  size: '512*512',
                  prompt_extend: false,
                }),
              };
    return { path: chosen.path, body: JSON.stringify(chosen.body) };
  }

  /** The SDK's behaviour: up to three attempts with the same key; the answer of the last one, if any. */
  private async post(
    operation: Operation,
    path: string,
    body: string,
    apiKey: string,
    async: boolean,
  ): Promise<{ status: number; body?: AnswerBody; taskId?: string } | undefined> {
    let avoid: number | undefined;
    for (let attempt = 0; attempt <= RETRIES; attempt++) {
      if (attempt > 0) await sleep(BACKOFF_MS[attempt - 1] * (0.75 + Math.random() / 2));
      if (this.aborting.signal.aborted) return undefined;
      const api = this.pickApi(operation.client, avoid);
      const started = Date.now();
      const result = await this.send(api, 'POST', path, apiKey, {
        body,
        headers: {
          'content-type': 'application/json',
          'idempotency-key': operation.key,
          ...(async ? { 'x-async': 'enable' } : {}),
        },
      });
      const taskId = result.taskId;
      if (taskId) operation.taskIds.add(taskId);
      operation.attempts.push({
        api,
        startedAt: started,
        endedAt: Date.now(),
        outcome: result.outcome,
        status: result.status,
        code: result.code,
        taskId,
      });
      avoid = result.outcome === 'network' ? api : undefined;
      if (result.outcome === 'aborted') return undefined;
      if (result.status !== undefined && !retryable(result.status))
        return { status: result.status, body: result.body, taskId };
    }
    return undefined;
  }

  /** Reads the task until it is final; polling failures (a killed api, the database away) are retried. */
  private async pollTask(operation: Operation, taskId: string, apiKey: string): Promise<void> {
    const polls = { answered: 0, failed: 0, statuses: {} as Record<string, number> };
    operation.polls = polls;
    const deadline = Date.now() + this.options.hungAfterMs;
    let avoid: number | undefined;
    while (Date.now() < deadline && !this.aborting.signal.aborted) {
      await sleep(this.options.pollIntervalMs ?? 500);
      const api = this.pickApi(operation.client, avoid);
      const result = await this.send(api, 'GET', `/v1/tasks/${taskId}`, apiKey, {
        timeoutMs: Math.max(1, deadline - Date.now()),
      });
      avoid = result.outcome === 'network' ? api : undefined;
      const label = result.status === undefined ? result.outcome : String(result.status);
      polls.statuses[label] = (polls.statuses[label] ?? 0) + 1;
      if (result.status !== 200) {
        polls.failed++;
        continue;
      }
      polls.answered++;
      const status = result.body?.status;
      operation.taskStatus = status;
      if (status === 'succeeded') {
        operation.final = 'ok';
        return;
      }
      if (status === 'failed' || status === 'cancelled') {
        operation.final = 'error';
        operation.note = `task ${status}${result.body?.error?.code ? ` ${result.body.error.code}` : ''}`;
        return;
      }
    }
    operation.final = this.aborting.signal.aborted ? 'aborted' : 'hung';
    operation.note = `task still ${operation.taskStatus ?? 'unread'} ${this.options.hungAfterMs} ms after it was accepted`;
  }

  /** A client's own api instance, unless it failed at the network level just now. */
  private pickApi(client: number, avoid?: number): number {
    const count = this.options.apiUrls.length;
    if (avoid !== undefined) {
      this.awayUntil[avoid] = Date.now() + AWAY_MS;
      return (avoid + 1) % count;
    }
    const home = client % count;
    return Date.now() < this.awayUntil[home] ? (home + 1) % count : home;
  }

  private async send(
    api: number,
    method: 'GET' | 'POST',
    path: string,
    apiKey: string,
    options: { body?: string; headers?: Record<string, string>; timeoutMs?: number },
  ): Promise<{ outcome: AttemptOutcome; status?: number; body?: AnswerBody; code?: string; taskId?: string }> {
    const timeout = AbortSignal.timeout(options.timeoutMs ?? this.options.hungAfterMs);
    try {
      const response = await request(`${this.options.apiUrls[api]}${path}`, {
        method,
        dispatcher: this.agent,
        headers: { authorization: `Bearer ${apiKey}`, ...options.headers },
        body: options.body,
        signal: AbortSignal.any([timeout, this.aborting.signal]),
      });
      const text = await response.body.text();
      let body: AnswerBody | undefined;
      try {
        body = JSON.parse(text) as AnswerBody;
      } catch {
        body = undefined;
      }
      const header = response.headers['x-task-id'];
      const taskId =
        (Array.isArray(header) ? header[0] : header) ??
        (typeof body?.task_id === 'string' ? body.task_id : undefined) ??
        (typeof body?.error?.task_id === 'string' ? body.error.task_id : undefined);
      return {
        outcome: outcomeOf(response.statusCode),
        status: response.statusCode,
        body,
        code: body?.error?.code,
        taskId,
      };
    } catch (error) {
      if (this.aborting.signal.aborted) return { outcome: 'aborted' };
      if (timeout.aborted) return { outcome: 'hung' };
      const cause = (error as { cause?: { code?: string } }).cause;
      return { outcome: 'network', code: (error as { code?: string }).code ?? cause?.code ?? (error as Error).name };
    }
  }
}

function outcomeOf(status: number): AttemptOutcome {
  if (status === 200 || status === 202) return String(status) as AttemptOutcome;
  if (status === 504) return '504';
  if (status >= 500) return '5xx';
  if (status >= 400) return '4xx';
  // Any other status is unexpected from a task POST: count it with the client errors.
  return '4xx';
}

/** The statuses the OpenAI SDK retries. */
function retryable(status: number): boolean {
  return status === 408 || status === 409 || status === 429 || status >= 500;
}
