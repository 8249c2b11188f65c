import { CatalogService, ResolvedRoute } from '@gateway/catalog';
import { AppConfig, GatewayError, LOGGER, longestImageCallMs } from '@gateway/common';
import { addUsage, MAX_RECORDED_UPSTREAM_ATTEMPTS, UpstreamAttempt, UpstreamUsage } from '@gateway/contracts';
import { MetricsService } from '@gateway/metrics';
import { LeaseSemaphore, routeSemaphore, RoutePacer } from '@gateway/redis';
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
  ImageEditInput,
  ModelProvider,
  PassedThroughCall,
  ProviderError,
  RespondAnswer,
  RespondCall,
  ResponsesStreamEvent,
} from './provider.types';

export interface RoutedAnswer<T> {
  value: T;
  route: ResolvedRoute;
  /** Time spent calling providers, retries and their waits included. */
  providerMs: number;
}

/** The task a routed call serves: its id for the logs, and where the upstream calls it makes are recorded. */
export interface TaskTrace {
  taskId: string;
  /** Receives every upstream call made, for the task record. */
  attempts?: UpstreamAttempt[];
  /** Told each route before it is tried: a stream names the one it relays in its answer's headers. */
  onRoute?: (route: ResolvedRoute) => void;
}

/**
 * Seconds a caller is asked to wait when every route failed and the upstreams named no time: about one window of a
 * per-minute (TPM/RPM) throttle, the usual reason retries did not outlast a failure.
 */
export const DEFAULT_RETRY_AFTER_S = 10;

/** Retry-After of an exhausted model: the longest an upstream asked for, else DEFAULT_RETRY_AFTER_S. */
function retryAfterHeader(seconds: number | undefined): Record<string, string> {
  return { 'retry-after': String(Math.ceil(seconds ?? DEFAULT_RETRY_AFTER_S)) };
}

/** The optional operations of ModelProvider; a route whose provider lacks one is skipped for it. */
type Operation = 'embed' | 'chat' | 'streamChat' | 'editImage' | 'respond' | 'streamRespond';
type Offering<O extends Operation> = ModelProvider & Required<Pick<ModelProvider, O>>;

function offers<O extends Operation>(provider: ModelProvider | undefined, operation: O): provider is Offering<O> {
  return typeof provider?.[operation] === 'function';
}

/**
 * Calls a model through its routes (docs/architecture.md, providers): retryable failures (network, timeout, 429, 5xx) are retried with
 * exponential backoff and jitter, then the next route is tried; an upstream that judges the request invalid is
 * the caller's 400; when every route failed the answer is 500 UpstreamError with Retry-After. A model's embedding
 * routes share one vector space (catalog loader), so falling back never mixes vectors a caller cannot compare.
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
    private readonly pacer: RoutePacer,
    local: LocalProvider,
    openAiCompatible: OpenAiCompatibleProvider,
    dashScope: DashScopeProvider,
    private readonly metrics: MetricsService,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {
    this.providers = { [local.name]: local, [openAiCompatible.name]: openAiCompatible, [dashScope.name]: dashScope };
    this.leaseMs = Math.max(config.UPSTREAM_TIMEOUT_MS, longestImageCallMs(config)) + 5_000;
    this.slotWaitMs = config.UPSTREAM_TIMEOUT_MS;
    this.retryPolicy = retry(
      handleWhen((error) => error instanceof ProviderError && error.failure === 'retryable'),
      {
        maxAttempts: config.UPSTREAM_RETRIES,
        backoff: new ExponentialBackoff({ initialDelay: config.UPSTREAM_RETRY_BASE_MS, maxDelay: 10_000 }),
      },
    );
  }

  /**
   * `task`, when given, names the task in the logs and receives every upstream call made, for its record. A route
   * whose `batch_size` is below the number of inputs gets them in parts (embedInParts); otherwise each route is one
   * call, as for any model.
   */
  embed(modelId: string, call: EmbeddingsCall, task?: TaskTrace): Promise<RoutedAnswer<EmbeddingsAnswer>> {
    const routes = this.catalog.routesOf(modelId);
    if (routes.some((route) => route.batch_size !== undefined && route.batch_size < call.input.length))
      return this.embedInParts(modelId, call, routes, task);
    return this.throughRoutes(modelId, 'embed', (provider, route) => provider.embed(route, call), task);
  }

  /**
   * Each route in turn with the whole input, cut into parts of its batch size. Every part is one call through that
   * route as a lone call goes (retries, slot, pace, record), so the route's max_concurrency and max_rps hold across
   * the parts. The answer comes whole from one route, in input order with usage summed: vectors of two routes'
   * models are not comparable, so a part that still fails after its retries sends the whole input to the next
   * route, and a part the upstream refuses as invalid refuses the request.
   */
  private async embedInParts(
    modelId: string,
    call: EmbeddingsCall,
    routes: ResolvedRoute[],
    task?: TaskTrace,
  ): Promise<RoutedAnswer<EmbeddingsAnswer>> {
    const started = performance.now();
    let unavailable = `the model ${modelId} is unavailable (no route can serve this model)`;
    let retryAfter: number | undefined;
    for (const route of routes) {
      if (!offers(this.providers[route.provider], 'embed')) continue;
      try {
        const value = await this.embedOnRoute(modelId, route, call, task);
        return { value, route, providerMs: performance.now() - started };
      } catch (error) {
        // throughRoutes of one route answers UpstreamError once that route has failed; anything else is final.
        if (!(error instanceof GatewayError) || error.code !== 'UpstreamError') throw error;
        unavailable = error.message;
        const asked = Number(error.headers?.['retry-after']);
        if (asked > 0) retryAfter = Math.max(retryAfter ?? 0, asked);
      }
    }
    throw new GatewayError('UpstreamError', unavailable, {
      details: { provider_ms: Math.round(performance.now() - started) },
      headers: retryAfterHeader(retryAfter),
    });
  }

  /** The input in parts of `route.batch_size`, at most EMBED_PARTS_IN_FLIGHT (or max_concurrency) at once. */
  private async embedOnRoute(
    modelId: string,
    route: ResolvedRoute,
    call: EmbeddingsCall,
    task?: TaskTrace,
  ): Promise<EmbeddingsAnswer> {
    const size = route.batch_size ?? call.input.length;
    const parts = Array.from({ length: Math.ceil(call.input.length / size) }, (_, i) =>
      call.input.slice(i * size, (i + 1) * size),
    );
    const answers = new Array<EmbeddingsAnswer>(parts.length);
    let next = 0;
    let failure: { error: unknown } | undefined;
    // Each lane takes the next part until none is left; after a failure no new part starts, as the route's answer
    // is lost anyway.
    const lane = async () => {
      while (!failure && next < parts.length) {
        const index = next++;
        const part: EmbeddingsCall = { ...call, input: parts[index] };
        try {
          const answered = await this.throughRoutes(
            modelId,
            'embed',
            (provider, partRoute) => provider.embed(partRoute, part),
            task,
            { routes: [route] },
          );
          answers[index] = answered.value;
        } catch (error) {
          failure ??= { error };
        }
      }
    };
    const lanes = Math.min(parts.length, route.max_concurrency ?? EMBED_PARTS_IN_FLIGHT);
    await Promise.all(Array.from({ length: lanes }, lane));
    if (failure) throw failure.error;
    return {
      vectors: answers.flatMap((answer) => answer.vectors),
      promptTokens: answers.reduce((sum, answer) => sum + answer.promptTokens, 0),
    };
  }

  /** Only the routes that honour every feature the call needs are tried (CatalogService.chatRoutesOf). */
  chat(modelId: string, call: ChatCall, task?: TaskTrace): Promise<RoutedAnswer<ChatAnswer>> {
    return this.throughRoutes(modelId, 'chat', (provider, route) => provider.chat(route, call), task, {
      routes: this.catalog.chatRoutesOf(modelId, call.features),
    });
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
    task?: TaskTrace,
  ): Promise<RoutedAnswer<ChatAnswer>> {
    const handedOn = new HandedOn();
    const relay = handedOn.counting(onChunk);
    return this.throughRoutes(
      modelId,
      'streamChat',
      (provider, route) => handedOn.settle(provider.streamChat(route, call, relay, signal)),
      task,
      { routes: this.catalog.chatRoutesOf(modelId, call.features) },
    );
  }

  /**
   * A POST /v1/responses request through the routes that honour its features, in catalog order, each the way it
   * takes one: a route whose upstream has the Responses endpoint (catalog `responses`) gets `call.responses`, any
   * other the Chat Completions translation. One fallback list may mix both: a failing Responses upstream falls back
   * to the next route, translated if that one is chat-only, and the other way round.
   */
  respond(modelId: string, call: RespondCall, task?: TaskTrace): Promise<RoutedAnswer<RespondAnswer>> {
    const passed = passedThrough(call);
    return this.throughRoutes<'chat', RespondAnswer>(
      modelId,
      'chat',
      (provider, route) =>
        passed && route.responses && offers(provider, 'respond')
          ? provider.respond(route, passed)
          : provider.chat(route, call),
      task,
      { routes: this.catalog.chatRoutesOf(modelId, call.features) },
    );
  }

  /**
   * `respond`, streamed: a route with the Responses endpoint hands its events to `onEvent`, any other its chat chunks
   * to `onChunk`. Once either has sent something on, a failure ends the stream, as in streamChat; a handler answers
   * false for what it held back (the opening events wait for the first item), which leaves the route's failure free
   * to fall back.
   */
  streamRespond(
    modelId: string,
    call: RespondCall,
    relay: {
      onEvent: (event: ResponsesStreamEvent) => Promise<boolean>;
      onChunk: (chunk: ChatChunk) => Promise<boolean>;
    },
    signal: AbortSignal,
    task?: TaskTrace,
  ): Promise<RoutedAnswer<RespondAnswer>> {
    const passed = passedThrough(call);
    const handedOn = new HandedOn();
    const onEvent = handedOn.counting(relay.onEvent);
    const onChunk = handedOn.counting(relay.onChunk);
    return this.throughRoutes<'streamChat', RespondAnswer>(
      modelId,
      'streamChat',
      (provider, route) =>
        handedOn.settle<RespondAnswer>(
          passed && route.responses && offers(provider, 'streamRespond')
            ? provider.streamRespond(route, passed, onEvent, signal)
            : provider.streamChat(route, call, onChunk, signal),
        ),
      task,
      { routes: this.catalog.chatRoutesOf(modelId, call.features) },
    );
  }

  /** Has the providers of the model's routes prepare a job's input images, before its n editImage calls. */
  async prepareImages(modelId: string, images: readonly ImageEditInput[]): Promise<void> {
    const providers = new Set(this.catalog.routesOf(modelId).map((route) => this.providers[route.provider]));
    await Promise.all([...providers].map((provider) => provider.prepareImages?.(images) ?? Promise.resolve()));
  }

  /** One output image; an edit of n images makes n calls. */
  editImage(modelId: string, call: ImageEditCall, task?: TaskTrace): Promise<RoutedAnswer<ImageEditAnswer>> {
    return this.throughRoutes(modelId, 'editImage', (provider, route) => provider.editImage(route, call), task, {
      image: call.variation,
    });
  }

  /**
   * Tries `routes` (by default all of the model's) in catalog order, skipping those whose provider cannot do
   * `operation`.
   */
  private async throughRoutes<O extends Operation, T>(
    modelId: string,
    operation: O,
    invoke: (provider: Offering<O>, route: ResolvedRoute) => Promise<T>,
    task?: TaskTrace,
    { image, routes = this.catalog.routesOf(modelId) }: ThroughRoutesScope = {},
  ): Promise<RoutedAnswer<T>> {
    const started = performance.now();
    let lastFailure = 'no route can serve this model';
    let retryAfter: number | undefined;
    for (const route of routes) {
      const provider = this.providers[route.provider];
      if (!offers(provider, operation)) continue;
      task?.onRoute?.(route);
      try {
        const value = await this.retryPolicy.execute(() =>
          this.attempt(
            provider,
            route,
            () => invoke(provider, route),
            // Calls that leave the process only: the record is for reconciling with upstreams' bills.
            (attempt) =>
              task?.attempts && provider.name !== 'local'
                ? recordAttempt(task.attempts, { ...attempt, ...(image !== undefined ? { image } : {}) })
                : undefined,
          ),
        );
        return { value, route, providerMs: performance.now() - started };
      } catch (error) {
        const brokeOff = brokenOff(error);
        if (brokeOff) this.logger.warn(refusalOf(brokeOff, modelId, route, task), 'upstream stream broke off');
        if (!(error instanceof ProviderError)) throw error;
        // One line per refusal, with what finds it upstream (the upstream's request id) and in the task record.
        const refusal = refusalOf(error, modelId, route, task);
        if (error.failure === 'request') {
          this.logger.info(refusal, 'upstream rejected the request');
          throw new GatewayError('InvalidParameter', `the upstream model rejected the request: ${error.message}`);
        }
        if (error.failure === 'content') {
          this.logger.info(refusal, 'upstream content inspection refused the input');
          throw new GatewayError('ContentRejected', `content inspection refused the input: ${error.message}`);
        }
        lastFailure = `${route.key}: ${error.message}`;
        // 0 ("after your own backoff") says nothing once the backoff is spent.
        if (error.retryAfter) retryAfter = Math.max(retryAfter ?? 0, error.retryAfter);
        this.logger.warn(refusal, 'route failed, trying the next one');
      }
    }
    throw new GatewayError('UpstreamError', `the model ${modelId} is unavailable (${lastFailure})`, {
      details: { provider_ms: Math.round(performance.now() - started) },
      headers: retryAfterHeader(retryAfter),
    });
  }

  private async attempt<T>(
    provider: ModelProvider,
    route: ResolvedRoute,
    run: () => Promise<T>,
    record: (attempt: UpstreamAttempt) => void,
  ): Promise<T> {
    const lease = route.max_concurrency ? await this.routeSlot(route, route.max_concurrency) : null;
    try {
      // Paced after taking the slot: a call paced first could wait for a slot past its turn and then start together
      // with others freed at once, above max_rps. Holding the slot while waiting costs little, since only the
      // other slot holders can have turns ahead, and the lease covers the wait (routeSlot).
      if (route.max_rps) await this.routeTurn(route, route.max_rps);
      return await this.timedCall(provider, route, run, record);
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

  /** One upstream call, timed, counted by outcome and recorded. */
  private async timedCall<T>(
    provider: ModelProvider,
    route: ResolvedRoute,
    run: () => Promise<T>,
    record: (attempt: UpstreamAttempt) => void,
  ): Promise<T> {
    const started = performance.now();
    try {
      const value = await run();
      const seconds = (performance.now() - started) / 1000;
      this.metrics.upstreamDuration.observe({ provider: provider.name, model: route.model, outcome: 'ok' }, seconds);
      const { requestId, reported } = value as { requestId?: string; reported?: UpstreamUsage };
      record({
        route: route.key,
        outcome: 'ok',
        ms: Math.round(seconds * 1000),
        ...(requestId ? { requestId } : {}),
        ...(reported ? { reported } : {}),
      });
      return value;
    } catch (thrown: unknown) {
      // A stream that broke off after it was relayed is the caller's UpstreamError, and still the upstream's failure.
      const error = brokenOff(thrown) ?? thrown;
      const reason =
        error instanceof ProviderError ? (error.status ? String(error.status) : error.failure) : 'internal';
      this.metrics.upstreamDuration.observe(
        { provider: provider.name, model: route.model, outcome: 'error' },
        (performance.now() - started) / 1000,
      );
      this.metrics.upstreamErrors.inc({ provider: provider.name, model: route.model, reason });
      record({
        route: route.key,
        outcome: error instanceof ProviderError ? error.failure : 'internal',
        ms: Math.round(performance.now() - started),
        ...(error instanceof ProviderError
          ? definedOf({ status: error.status, code: error.code, requestId: error.requestId })
          : {}),
      });
      throw thrown;
    }
  }

  /** One of the route's max_concurrency slots, shared by every worker; a route that stays full counts as failing. */
  private async routeSlot(route: ResolvedRoute, slots: number) {
    const lease = await this.semaphore.acquire(
      routeSemaphore(route.key),
      slots,
      this.leaseMs + this.turnWaitMs(route),
      Date.now() + this.slotWaitMs,
    );
    if (!lease) throw new ProviderError(`all ${slots} slots of ${route.key} stayed busy`, 'retryable');
    return lease;
  }

  /** Waits for the route's next start under max_rps, shared by every worker; a turn too far off counts as busy. */
  private async routeTurn(route: ResolvedRoute, maxRps: number) {
    const waitMs = this.turnWaitMs(route);
    if (!(await this.pacer.pace(route.key, maxRps, Date.now() + waitMs)))
      throw new ProviderError(
        `the next start on ${route.key} (max_rps ${maxRps}) is over ${waitMs} ms away`,
        'retryable',
      );
  }

  /**
   * The longest wait for a turn. A slot holder has at most the other holders' turns ahead of it; a longer wait means
   * something else shares the route's pace (another catalog entry), and the slot would be held too long.
   */
  private turnWaitMs(route: ResolvedRoute): number {
    if (!route.max_rps) return 0;
    return route.max_concurrency ? Math.ceil((route.max_concurrency * 1000) / route.max_rps) : this.slotWaitMs;
  }
}

/**
 * Counts what a stream handed on to the caller. Once anything was, a failure ends the stream (UpstreamError) instead
 * of being retried or sent to another route, which would repeat what the client already has. A handler that answers
 * false held its item back, so it does not count.
 */
class HandedOn {
  private count = 0;

  counting<T>(onItem: (item: T) => Promise<boolean | void>): (item: T) => Promise<void> {
    return async (item) => {
      if ((await onItem(item)) !== false) this.count++;
    };
  }

  async settle<T>(running: Promise<T>): Promise<T> {
    try {
      return await running;
    } catch (error) {
      // The upstream's failure stays its cause: the attempt is recorded and logged by it.
      if (this.count > 0 && error instanceof ProviderError)
        throw new GatewayError('UpstreamError', `the upstream stream broke off: ${error.message}`, { cause: error });
      throw error;
    }
  }
}

/** The upstream's failure that ended a stream after it was relayed (HandedOn.settle), if that is what `error` is. */
function brokenOff(error: unknown): ProviderError | undefined {
  return error instanceof GatewayError && error.cause instanceof ProviderError ? error.cause : undefined;
}

/** An upstream refusal's log fields: what finds it upstream and in the task record, never the request or a key. */
function refusalOf(error: ProviderError, modelId: string, route: ResolvedRoute, task?: TaskTrace) {
  return {
    taskId: task?.taskId,
    model: modelId,
    route: route.key,
    status: error.status,
    code: error.code,
    upstreamRequestId: error.requestId,
    failure: error.failure,
    err: error.message,
  };
}

/** The call for a Responses endpoint, when the api prepared one (the model has a route with it). */
function passedThrough(call: RespondCall): PassedThroughCall | undefined {
  return call.responses ? { ...call, responses: call.responses } : undefined;
}

/**
 * Adds a call to the task's record, up to MAX_RECORDED_UPSTREAM_ATTEMPTS. Past that, what a call's answer reported
 * still counts: it is added to the last recorded answer of its route, so the route's reported sums stay whole.
 */
function recordAttempt(attempts: UpstreamAttempt[], attempt: UpstreamAttempt): void {
  if (attempts.length < MAX_RECORDED_UPSTREAM_ATTEMPTS) {
    attempts.push(attempt);
    return;
  }
  if (!attempt.reported) return;
  for (let i = attempts.length - 1; i >= 0; i--) {
    const kept = attempts[i];
    if (kept.route !== attempt.route || kept.outcome !== 'ok') continue;
    kept.reported = addUsage(kept.reported ?? {}, attempt.reported);
    return;
  }
}

/** Which routes `throughRoutes` tries (by default all of the model's), and the output image a call is for. */
interface ThroughRoutesScope {
  image?: number;
  routes?: ResolvedRoute[];
}

/** The fields that have a value, so a record carries no nulls for what an upstream did not say. */
function definedOf<T extends object>(fields: T): Partial<T> {
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined)) as Partial<T>;
}

/**
 * Parts of one embeddings request in flight at once on a route without max_concurrency. 2,048 inputs at DashScope's
 * 10 a call are 205 calls: all at once they would meet the upstream's rate limit as one burst. A route's
 * max_concurrency and max_rps are where an operator sets the upstream's real limits.
 */
const EMBED_PARTS_IN_FLIGHT = 8;
