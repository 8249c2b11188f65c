import type { ResolvedRoute } from '@gateway/catalog';
import { AppConfig } from '@gateway/common';
import { Injectable, OnModuleDestroy } from '@nestjs/common';
import { Agent, Dispatcher, errors, request } from 'undici';
import { ChatAnswer, ChatCall, EmbeddingsAnswer, EmbeddingsCall, ModelProvider, ProviderError } from '../provider.types';

interface OpenAiEmbeddingsBody {
  data: { index: number; embedding: number[] }[];
  usage?: { prompt_tokens?: number; total_tokens?: number };
}

interface OpenAiChatBody {
  choices: { message?: { content?: string | null }; finish_reason?: string | null }[];
  usage?: { prompt_tokens?: number; completion_tokens?: number };
}

/** Any OpenAI-style upstream (OpenAI, vLLM, Ollama, DashScope compatible mode, …) over a pooled keep-alive client. */
@Injectable()
export class OpenAiCompatibleProvider implements ModelProvider, OnModuleDestroy {
  readonly name = 'openai-compatible' as const;
  private readonly agent: Agent;
  private readonly timeoutMs: number;

  constructor(config: AppConfig) {
    this.timeoutMs = config.UPSTREAM_TIMEOUT_MS;
    this.agent = new Agent({
      keepAliveTimeout: 30_000,
      connections: 512,
      headersTimeout: config.UPSTREAM_TIMEOUT_MS,
      bodyTimeout: config.UPSTREAM_TIMEOUT_MS,
    });
  }

  async onModuleDestroy(): Promise<void> {
    await this.agent.close();
  }

  async embed(route: ResolvedRoute, call: EmbeddingsCall): Promise<EmbeddingsAnswer> {
    const body = await this.post<OpenAiEmbeddingsBody>(route, '/embeddings', {
      model: route.model,
      input: call.input,
      encoding_format: 'float',
      ...(call.dimensions ? { dimensions: call.dimensions } : {}),
      ...(call.user ? { user: call.user } : {}),
    });
    if (!Array.isArray(body.data) || body.data.length !== call.input.length) {
      throw new ProviderError(`upstream returned ${body.data?.length ?? 'no'} embeddings for ${call.input.length} inputs`, 'retryable');
    }
    const vectors: number[][] = new Array(call.input.length);
    for (const item of body.data) vectors[item.index] = item.embedding;
    return { vectors, promptTokens: body.usage?.prompt_tokens ?? body.usage?.total_tokens ?? 0 };
  }

  async chat(route: ResolvedRoute, call: ChatCall): Promise<ChatAnswer> {
    const body = await this.post<OpenAiChatBody>(route, '/chat/completions', {
      model: route.model,
      messages: call.messages,
      max_tokens: call.maxTokens,
      temperature: call.temperature,
      top_p: call.topP,
      stop: call.stop,
      seed: call.seed,
      user: call.user,
      stream: false,
    });
    const choice = body.choices?.[0];
    if (!choice) throw new ProviderError('upstream returned no choices', 'retryable');
    return {
      content: choice.message?.content ?? '',
      finishReason: choice.finish_reason ?? 'stop',
      promptTokens: body.usage?.prompt_tokens ?? 0,
      completionTokens: body.usage?.completion_tokens ?? 0,
    };
  }

  private async post<T>(route: ResolvedRoute, path: string, payload: unknown): Promise<T> {
    let response: Dispatcher.ResponseData;
    try {
      response = await request(`${route.baseUrl}${path}`, {
        method: 'POST',
        dispatcher: this.agent,
        headers: {
          'content-type': 'application/json',
          ...(route.apiKey ? { authorization: `Bearer ${route.apiKey}` } : {}),
        },
        body: JSON.stringify(payload),
        // Bounds the whole call, not just each phase, so a route slot's lease always outlives it.
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch (error) {
      const timeout =
        error instanceof errors.HeadersTimeoutError || error instanceof errors.BodyTimeoutError || (error as Error).name === 'TimeoutError';
      throw new ProviderError(timeout ? 'upstream timed out' : `upstream unreachable: ${(error as Error).message}`, 'retryable');
    }
    const text = await response.body.text().catch(() => '');
    if (response.statusCode >= 200 && response.statusCode < 300) {
      try {
        return JSON.parse(text) as T;
      } catch {
        throw new ProviderError('upstream answered with invalid JSON', 'retryable', response.statusCode);
      }
    }
    throw classify(response.statusCode, text, response.headers['retry-after']);
  }
}

function classify(status: number, text: string, retryAfterHeader: string | string[] | undefined): ProviderError {
  const message = upstreamMessage(text) ?? `upstream answered HTTP ${status}`;
  if (status === 429 || status >= 500) {
    const retryAfter = Number(Array.isArray(retryAfterHeader) ? retryAfterHeader[0] : retryAfterHeader);
    return new ProviderError(message, 'retryable', status, Number.isFinite(retryAfter) ? retryAfter : undefined);
  }
  if (status === 401 || status === 403 || status === 404) return new ProviderError(message, 'route', status);
  return new ProviderError(message, 'request', status);
}

/** The human-readable message of an OpenAI-style error body, if there is one. */
function upstreamMessage(text: string): string | undefined {
  try {
    const body = JSON.parse(text) as { error?: { message?: string } | string; message?: string };
    if (typeof body.error === 'string') return body.error;
    return body.error?.message ?? body.message;
  } catch {
    return undefined;
  }
}
