/**
 * The real local models (a GGUF chat model and a GGUF sentence-embedding model, fetched by scripts/models.js) run
 * on the CPU with node-llama-cpp inside one worker thread (local-models.worker.mjs), so the ESM-only runtime loads
 * outside CommonJS and jest, and inference never blocks the process's event loop that renews BullMQ locks.
 */
import path from 'node:path';
import { Worker } from 'node:worker_threads';

export interface LocalModelHostOptions {
  chatModelPath?: string;
  embeddingModelPath?: string;
  /** Chat generations that run at once, each in its own context; more wait in line. Default 1. */
  chatConcurrency?: number;
  /** Embedding requests that run at once, each in its own context; more wait in line. Default 1. */
  embeddingConcurrency?: number;
  /** CPU threads per context. Default: the machine's cores (os.availableParallelism()). */
  threads?: number;
  /** Tokens of the chat context (prompt + completion), capped at the model's training context. Default 2048. */
  chatContextSize?: number;
}

export interface LocalChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

/**
 * What the output must be, enforced token by token: any JSON object (node-llama-cpp's json.gbnf), or JSON valid
 * against a schema in node-llama-cpp's GbnfJsonSchema subset (chat/json-schema-grammar.ts translates to it).
 */
export type LocalGrammar = { type: 'json' } | { type: 'json_schema'; schema: Record<string, unknown> };

export interface LocalChatRequest {
  messages: LocalChatMessage[];
  /** Completions of the same prompt, generated one after the other; the i-th samples with seed + i. Default 1. */
  n?: number;
  maxTokens?: number;
  /** 0 is greedy decoding. Default 1. */
  temperature?: number;
  /** Default 1 (the whole vocabulary, as OpenAI samples). */
  topP?: number;
  /** Fixes sampling when temperature > 0. */
  seed?: number;
  stop?: string[];
  /** OpenAI's: subtracted once from the logit of every token already generated, -2 to 2. */
  presencePenalty?: number;
  /** OpenAI's: subtracted from a token's logit for each time it was generated, -2 to 2. */
  frequencyPenalty?: number;
  /** Added to the logits of the model's own token ids, -100 to 100; -100 bans the token. */
  logitBias?: [token: number, bias: number][];
  grammar?: LocalGrammar;
}

export type LocalFinishReason = 'stop' | 'length' | 'cancelled';

export interface LocalCompletion {
  content: string;
  finishReason: LocalFinishReason;
  completionTokens: number;
}

export interface LocalChatResult {
  /** One per requested completion; fewer when cancelled before the others were generated. */
  completions: LocalCompletion[];
  /** The rendered prompt once, in the model's tokens. */
  promptTokens: number;
  /** Summed over the completions. */
  completionTokens: number;
}

/** The model refused the request itself (too long a prompt, a token id outside its vocabulary, …). */
export class LocalModelRequestError extends Error {
  override readonly name = 'LocalModelRequestError';
}

export interface LocalEmbeddingResult {
  /** One unit-length vector per text, in the model's native dimension. */
  vectors: number[][];
  promptTokens: number;
}

interface Ready {
  type: 'ready';
  chatAvailable: boolean;
  chatContextSize?: number;
  embeddingDimensions?: number;
  embeddingContextSize?: number;
}

type Reply =
  | { id: number; type: 'delta'; index: number; text: string }
  | ({ id: number; type: 'done' } & (LocalChatResult | LocalEmbeddingResult))
  | { id: number; type: 'error'; message: string; invalid?: boolean };

/** Text of completion `index` as it is generated. */
export type LocalDeltaHandler = (text: string, index: number) => void;

interface Pending {
  resolve(result: LocalChatResult | LocalEmbeddingResult): void;
  reject(error: Error): void;
  onDelta?: LocalDeltaHandler;
}

const WORKER_FILE = 'local-models.worker.mjs';
const CLOSE_TIMEOUT_MS = 10_000;

/**
 * The worker thread's handle: correlates requests and replies by id, turns an AbortSignal into a cancel message
 * and restarts nothing: once the thread dies, pending and later calls reject with the reason.
 */
export class LocalModelHost {
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private failure?: Error;
  private exited: Promise<void>;

  private constructor(
    private readonly worker: Worker,
    private readonly ready: Ready,
  ) {
    this.exited = new Promise((resolve) => worker.once('exit', () => resolve()));
    worker.on('message', (message: Reply) => this.onReply(message));
    worker.on('error', (error) => this.fail(new Error(`local model worker crashed: ${error.message}`)));
    worker.on('exit', (code) => this.fail(new Error(`local model worker exited (code ${code})`)));
    worker.on('messageerror', (error) =>
      this.fail(new Error(`local model worker sent an unreadable message: ${error.message}`)),
    );
    worker.unref(); // held only while calls are pending (see track)
  }

  /** Starts the worker thread and resolves once both models are loaded; rejects with the loader's reason. */
  static start(options: LocalModelHostOptions): Promise<LocalModelHost> {
    const worker = new Worker(path.join(__dirname, WORKER_FILE), { workerData: options });
    return new Promise((resolve, reject) => {
      const cleanup = () => {
        worker.off('message', onMessage);
        worker.off('error', onError);
        worker.off('exit', onExit);
      };
      const onMessage = (message: Ready | { type: 'fatal'; message: string }) => {
        cleanup();
        if (message.type === 'ready') {
          resolve(new LocalModelHost(worker, message));
        } else {
          void worker.terminate();
          reject(new Error(message.message));
        }
      };
      const onError = (error: Error) => {
        cleanup();
        reject(new Error(`local model worker failed to start: ${error.message}`));
      };
      const onExit = (code: number) => {
        cleanup();
        reject(new Error(`local model worker exited (code ${code}) before the models were loaded`));
      };
      worker.on('message', onMessage);
      worker.on('error', onError);
      worker.on('exit', onExit);
    });
  }

  get chatAvailable(): boolean {
    return this.ready.chatAvailable;
  }

  /** The embedding model's native dimension, when one is loaded. */
  get embeddingDimensions(): number | undefined {
    return this.ready.embeddingDimensions;
  }

  /** Tokens one chat can hold (prompt + completion). */
  get chatContextSize(): number | undefined {
    return this.ready.chatContextSize;
  }

  /**
   * Generates the assistant's replies to `request.messages` with the model's chat template. Text is passed to
   * `onDelta` as it is produced; aborting `signal` stops the generation, which then resolves with the completion
   * it was on marked 'cancelled' and the usage so far. A request the model cannot serve rejects with
   * LocalModelRequestError.
   */
  async chat(request: LocalChatRequest, onDelta?: LocalDeltaHandler, signal?: AbortSignal): Promise<LocalChatResult> {
    if (!this.ready.chatAvailable) throw new Error('no local chat model is loaded');
    const id = this.nextId++;
    const result = this.track(id, onDelta) as Promise<LocalChatResult>;
    const cancel = () => this.post({ id, kind: 'cancel' });
    signal?.addEventListener('abort', cancel, { once: true });
    this.post({ ...request, id, kind: 'chat' });
    if (signal?.aborted) cancel();
    try {
      return await result;
    } finally {
      signal?.removeEventListener('abort', cancel);
    }
  }

  /** Unit-length embeddings of `texts`, in order; texts longer than the model's window are cut to it. */
  async embed(texts: string[]): Promise<LocalEmbeddingResult> {
    if (this.ready.embeddingDimensions === undefined) throw new Error('no local embedding model is loaded');
    const id = this.nextId++;
    const result = this.track(id) as Promise<LocalEmbeddingResult>;
    this.post({ id, kind: 'embed', texts });
    return result;
  }

  /** Stops the thread after the models are released; pending calls reject. */
  async close(): Promise<void> {
    const running = !this.failure;
    this.fail(new Error('local model host is closed'));
    if (running) {
      this.worker.ref(); // keep the process up until the thread has released the models
      this.worker.postMessage({ kind: 'close' });
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<'timeout'>((resolve) => (timer = setTimeout(resolve, CLOSE_TIMEOUT_MS, 'timeout')));
      const outcome = await Promise.race([this.exited, timeout]);
      clearTimeout(timer);
      if (outcome === 'timeout') await this.worker.terminate();
    }
    await this.exited;
  }

  private track(id: number, onDelta?: LocalDeltaHandler): Promise<LocalChatResult | LocalEmbeddingResult> {
    if (this.failure) return Promise.reject(this.failure);
    if (this.pending.size === 0) this.worker.ref();
    return new Promise((resolve, reject) => this.pending.set(id, { resolve, reject, onDelta }));
  }

  private settle(id: number): Pending | undefined {
    const call = this.pending.get(id);
    this.pending.delete(id);
    if (this.pending.size === 0) this.worker.unref();
    return call;
  }

  private onReply(message: Reply): void {
    if (message.type === 'delta') {
      this.pending.get(message.id)?.onDelta?.(message.text, message.index);
    } else if (message.type === 'done') {
      const { id, type, ...answer } = message;
      this.settle(id)?.resolve(answer);
    } else if (message.type === 'error') {
      const error = message.invalid ? new LocalModelRequestError(message.message) : new Error(message.message);
      this.settle(message.id)?.reject(error);
    }
  }

  private post(message: Record<string, unknown>): void {
    if (!this.failure) this.worker.postMessage(message);
  }

  private fail(error: Error): void {
    this.failure ??= error;
    for (const [id, call] of this.pending) {
      this.settle(id);
      call.reject(this.failure);
    }
  }
}
