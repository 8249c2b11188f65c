import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { AppConfig, LOGGER } from '@gateway/common';
import { ENDPOINTS } from '@gateway/contracts';
import { Inject, Injectable, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { Logger } from 'pino';
import { ProviderError } from '../provider.types';
import { DimensionProjection } from './dimension-projection';
import {
  LocalChatRequest,
  LocalChatResult,
  LocalDeltaHandler,
  LocalModelHost,
  LocalModelRequestError,
} from './models/local-model-host';

/** Every task queue, each endpoint's, may reach a local model (image-edit through prompt_extend). */
const QUEUES_USING_LOCAL_MODELS: readonly string[] = Object.values(ENDPOINTS).map((endpoint) => endpoint.queue);

/** What scripts/models.js writes next to the model files: where each one is. */
interface ModelsManifest {
  chatModelPath?: string;
  embeddingModelPath?: string;
}

/**
 * The worker's local models, loaded once per process when it starts (docs/architecture.md, providers): a chat model and a
 * sentence-embedding model in one worker thread, with inference concurrency capped per model. A worker with
 * LOCAL_MODELS=off, one serving only other queues (webhooks, maintenance), or one without model files loads
 * nothing, and its local routes fail over to the next route.
 */
@Injectable()
export class LocalModels implements OnModuleInit, OnModuleDestroy {
  private host?: LocalModelHost;
  private projection?: DimensionProjection;

  constructor(
    private readonly config: AppConfig,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  async onModuleInit(): Promise<void> {
    const queues = this.config.workerQueues;
    const needed = queues === 'all' || queues.some((queue) => QUEUES_USING_LOCAL_MODELS.includes(queue));
    if (this.config.LOCAL_MODELS === 'off' || !needed) return;
    const manifest = readManifest(this.config.LOCAL_MODELS_DIR);
    if (!manifest) {
      this.logger.warn(
        { dir: this.config.LOCAL_MODELS_DIR },
        'no local models found (run `node scripts/models.js`); local chat and embedding routes are off',
      );
      return;
    }
    const started = Date.now();
    this.host = await LocalModelHost.start({
      chatModelPath: manifest.chatModelPath,
      embeddingModelPath: manifest.embeddingModelPath,
      chatConcurrency: this.config.LOCAL_CHAT_CONCURRENCY,
      embeddingConcurrency: this.config.LOCAL_EMBEDDING_CONCURRENCY,
      threads: this.config.LOCAL_MODEL_THREADS || undefined,
    });
    if (this.host.embeddingDimensions) this.projection = new DimensionProjection(this.host.embeddingDimensions);
    this.logger.info(
      { chat: this.host.chatAvailable, embeddingDimensions: this.host.embeddingDimensions, ms: Date.now() - started },
      'local models loaded',
    );
  }

  async onModuleDestroy(): Promise<void> {
    await this.host?.close();
  }

  get chatAvailable(): boolean {
    return this.host?.chatAvailable ?? false;
  }

  /** The host's chat; what the model refuses as asked is the caller's to change (ProviderError 'request'). */
  async chat(request: LocalChatRequest, onDelta?: LocalDeltaHandler, signal?: AbortSignal): Promise<LocalChatResult> {
    if (!this.host?.chatAvailable)
      throw new ProviderError('the local chat model is not loaded on this worker', 'route');
    try {
      return await this.host.chat(request, onDelta, signal);
    } catch (error) {
      if (error instanceof LocalModelRequestError) throw new ProviderError(error.message, 'request');
      throw error;
    }
  }

  /** Vectors at `dimensions`: the model's own size, or projected to it (DimensionProjection says how). */
  async embed(texts: string[], dimensions?: number): Promise<{ vectors: number[][]; promptTokens: number }> {
    const { host, projection } = this;
    if (!host?.embeddingDimensions || !projection)
      throw new ProviderError('the local embedding model is not loaded on this worker', 'route');
    const { vectors, promptTokens } = await host.embed(texts);
    const size = dimensions ?? host.embeddingDimensions;
    return { vectors: vectors.map((vector) => projection.project(vector, size)), promptTokens };
  }
}

function readManifest(dir: string): ModelsManifest | null {
  const file = path.resolve(dir, 'models.json');
  if (!existsSync(file)) return null;
  const manifest = JSON.parse(readFileSync(file, 'utf8')) as ModelsManifest;
  // Relative to the manifest's directory (absolute paths stay as they are).
  const present = (model?: string) =>
    model && existsSync(path.resolve(dir, model)) ? path.resolve(dir, model) : undefined;
  const found = {
    chatModelPath: present(manifest.chatModelPath),
    embeddingModelPath: present(manifest.embeddingModelPath),
  };
  return found.chatModelPath || found.embeddingModelPath ? found : null;
}
