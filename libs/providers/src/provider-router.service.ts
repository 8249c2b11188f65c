import { CatalogService, ResolvedRoute } from '@gateway/catalog';
import { AppConfig, GatewayError, LOGGER } from '@gateway/common';
import { MetricsService } from '@gateway/metrics';
import { LeaseSemaphore, routeSemaphore } from '@gateway/queue';
import { Inject, Injectable } from '@nestjs/common';
import { ExponentialBackoff, handleWhen, retry, RetryPolicy } from 'cockatiel';
import { Logger } from 'pino';
import { DashScopeProvider } from './dashscope/dashscope.provider';
import { LocalProvider } from './local/local.provider';
import { OpenAiCompatibleProvider } from './openai-compatible/openai-compatible.provider';
import {
  ChatAnswer,
  ChatCall,
  ChatChunk,
  EmbeddingsAnswer,
  EmbeddingsCall,
  ImageEditAnswer,
  ImageEditCall,
  ModelProvider,
  ProviderError,
} from './provider.types';

export interface RoutedAnswer<T> {
  value: T;
  route: ResolvedRoute;
  /** Time spent calling providers, retries and their waits included. */
  providerMs: number;
}

/** The optional operations of ModelProvider; a route whose provider lacks one is skipped for it. */
type Operation = 'embed' | 'chat' | 'streamChat' | 'editImage';
type Offering<O extends Operation> = ModelProvider & Required<Pick<ModelProvider, O>>;

function offers<O extends Operation>(provider: ModelProvider | undefined, operation: O): provider is Offering<O> {
  return typeof provider?.[operation] === 'function';
}

/**
 * Calls a model through its routes (docs/architecture.md, providers): retryable failures (network, timeout, 429, 5xx) are retried with
 * exponential backoff and jitter, then the next route is tried; an upstream that judges the request invalid is
 * the caller's 400; when every route failed the answer is 500 UpstreamError.
 */
@Injectable()
export class ProviderRouter {
  private readonly providers: Record<string, ModelProvider>;
  private readonly retryPolicy: RetryPolicy;
  /** A call is bounded by the upstream timeout, so a lease this long outlives any call it guards. */
  private readonly leaseMs: number;
  private readonly slotWaitMs: number;

  constructor(
    config: AppConfig,
    private readonly catalog: CatalogService,
    private readonly semaphore: LeaseSemaphore,
    local: LocalProvider,
    openAiCompatible: OpenAiCompatibleProvider,
    dashScope: DashScopeProvider,
    private readonly metrics: MetricsService,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {
    this.providers = { [local.name]: local, [openAiCompatible.name]: openAiCompatible, [dashScope.name]: dashScope };
    this.leaseMs = config.UPSTREAM_TIMEOUT_MS + 5_000;
    this.slotWaitMs = config.UPSTREAM_TIMEOUT_MS;
    this.retryPolicy = retry(
      handleWhen((error) => error instanceof ProviderError && error.failure === 'retryable'),
      {
        maxAttempts: config.UPSTREAM_RETRIES,
        backoff: new ExponentialBackoff({ initialDelay: config.UPSTREAM_RETRY_BASE_MS, maxDelay: 10_000 }),
      },
    );
  }

  embed(modelId: string, call: EmbeddingsCall): Promise<RoutedAnswer<EmbeddingsAnswer>> {
    return this.throughRoutes(modelId, 'embed', (provider, route) => provider.embed(route, call));
  }

  chat(modelId: string, call: ChatCall): Promise<RoutedAnswer<ChatAnswer>> {
    return this.throughRoutes(modelId, 'chat', (provider, route) => provider.chat(route, call));
  }

  /**
   * A streamed completion, each chunk handed to `onChunk` as it arrives. Once a chunk has been handed on, a failure
   * ends the stream (UpstreamError) instead of retrying or falling back, which would repeat text already sent.
   */
  streamChat(
    modelId: string,
    call: ChatCall,
    onChunk: (chunk: ChatChunk) => Promise<void>,
    signal: AbortSignal,
  ): Promise<RoutedAnswer<ChatAnswer>> {
    let handedOn = 0;
    const relay = async (chunk: ChatChunk) => {
      await onChunk(chunk);
      handedOn++;
    };
    return this.throughRoutes(modelId, 'streamChat', async (provider, route) => {
      try {
        return await provider.streamChat(route, call, relay, signal);
      } catch (error) {
        if (handedOn > 0 && error instanceof ProviderError)
          throw new GatewayError('UpstreamError', `the upstream stream broke off: ${error.message}`);
        throw error;
      }
    });
  }

  /** One output image; an edit of n images makes n calls. */
  editImage(modelId: string, call: ImageEditCall): Promise<RoutedAnswer<ImageEditAnswer>> {
    return this.throughRoutes(modelId, 'editImage', (provider, route) => provider.editImage(route, call));
  }

  /** Tries the model's routes in catalog order, skipping those whose provider cannot do `operation`. */
  private async throughRoutes<O extends Operation, T>(
    modelId: string,
    operation: O,
    invoke: (provider: Offering<O>, route: ResolvedRoute) => Promise<T>,
  ): Promise<RoutedAnswer<T>> {
    const started = performance.now();
    let lastFailure = 'no route can serve this model';
    for (const route of this.catalog.routesOf(modelId)) {
      const provider = this.providers[route.provider];
      if (!offers(provider, operation)) continue;
      try {
        const value = await this.retryPolicy.execute(() =>
          this.attempt(provider, route, () => invoke(provider, route)),
        );
        return { value, route, providerMs: performance.now() - started };
      } catch (error) {
        if (!(error instanceof ProviderError)) throw error;
        if (error.failure === 'request') {
          throw new GatewayError('InvalidParameter', `the upstream model rejected the request: ${error.message}`);
        }
        lastFailure = `${route.key}: ${error.message}`;
        this.logger.warn(
          { model: modelId, route: route.key, status: error.status, err: error.message },
          'route failed, trying the next one',
        );
      }
    }
    throw new GatewayError('UpstreamError', `the model ${modelId} is unavailable (${lastFailure})`, {
      details: { provider_ms: Math.round(performance.now() - started) },
    });
  }

  private async attempt<T>(provider: ModelProvider, route: ResolvedRoute, run: () => Promise<T>): Promise<T> {
    const lease = route.max_concurrency ? await this.routeSlot(route, route.max_concurrency) : null;
    const started = performance.now();
    try {
      const value = await run();
      this.metrics.upstreamDuration.observe(
        { provider: provider.name, model: route.model, outcome: 'ok' },
        (performance.now() - started) / 1000,
      );
      return value;
    } catch (error) {
      const reason =
        error instanceof ProviderError ? (error.status ? String(error.status) : error.failure) : 'internal';
      this.metrics.upstreamDuration.observe(
        { provider: provider.name, model: route.model, outcome: 'error' },
        (performance.now() - started) / 1000,
      );
      this.metrics.upstreamErrors.inc({ provider: provider.name, model: route.model, reason });
      throw error;
    } finally {
      lease
        ?.release()
        .catch((error) =>
          this.logger.warn(
            { route: route.key, err: (error as Error).message },
            'route slot release failed; its lease will expire',
          ),
        );
    }
  }

  /** One of the route's max_concurrency slots, shared by every worker; a route that stays full counts as failing. */
  private async routeSlot(route: ResolvedRoute, slots: number) {
    const lease = await this.semaphore.acquire(
      routeSemaphore(route.key),
      slots,
      this.leaseMs,
      Date.now() + this.slotWaitMs,
    );
    if (!lease) throw new ProviderError(`all ${slots} slots of ${route.key} stayed busy`, 'retryable');
    return lease;
  }
}
