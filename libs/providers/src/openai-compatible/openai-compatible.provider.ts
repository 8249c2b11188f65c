import { countChoiceTokens, countMessageTokens, type ResolvedRoute, tokenizerOf } from '@gateway/catalog';
import { AppConfig } from '@gateway/common';
import { Injectable, OnModuleDestroy } from '@nestjs/common';
import { Blob } from 'node:buffer';
import { Agent, FormData } from 'undici';
import type { ChatChoice } from '@gateway/contracts';
import { ChatStreamAccumulator } from '../chat-stream-accumulator';
import { reportedUsage, StatedUsage } from '../reported-usage';
import { chatRequestFor } from './chat-dialects';
import { readResponse, responsesAnswerOf } from './responses-endpoint';
import {
  ChatAnswer,
  ChatCall,
  ChatChunk,
  EmbeddingsAnswer,
  EmbeddingsCall,
  ImageEditAnswer,
  ImageEditCall,
  ModelProvider,
  PassedThroughCall,
  ProviderError,
  ResponsesAnswer,
  ResponsesStreamEvent,
} from '../provider.types';
import { ResponsesStreamAccumulator } from '../responses-stream-accumulator';
import {
  decodeInlineImage,
  downloadImage,
  MAX_RESULT_IMAGE_BYTES,
  postToUpstream,
  UpstreamAnswer,
  idOf,
  streamFromUpstream,
  upstreamAgent,
  withRequestId,
} from '../upstream-http';

/** The JSON answer carries the image in base64 (4/3 of its size) plus a little JSON. */
const MAX_IMAGES_ANSWER_BYTES = Math.ceil((MAX_RESULT_IMAGE_BYTES * 4) / 3) + 64 * 1024;

interface OpenAiEmbeddingsBody {
  data: { index: number; embedding: number[] }[];
  usage?: { prompt_tokens?: number; total_tokens?: number } & StatedUsage;
}

interface OpenAiImagesBody {
  created?: number;
  data?: { b64_json?: string; url?: string; revised_prompt?: string }[];
}

interface OpenAiChatBody {
  choices?: Partial<ChatChoice>[];
  usage?: {
    prompt_tokens?: number;
    completion_tokens?: number;
    prompt_tokens_details?: unknown;
    completion_tokens_details?: unknown;
  } & StatedUsage;
  system_fingerprint?: string | null;
}

/** Any OpenAI-style upstream (OpenAI, vLLM, Ollama, DashScope compatible mode, …) over a pooled keep-alive client. */
@Injectable()
export class OpenAiCompatibleProvider implements ModelProvider, OnModuleDestroy {
  readonly name = 'openai-compatible' as const;
  private readonly agent: Agent;
  private readonly timeoutMs: number;

  constructor(config: AppConfig) {
    this.timeoutMs = config.UPSTREAM_TIMEOUT_MS;
    this.agent = upstreamAgent(config.UPSTREAM_TIMEOUT_MS, config.UPSTREAM_CONNECTIONS);
  }

  async onModuleDestroy(): Promise<void> {
    await this.agent.close();
  }

  async embed(route: ResolvedRoute, call: EmbeddingsCall): Promise<EmbeddingsAnswer> {
    const { body, requestId } = await this.post<OpenAiEmbeddingsBody>(route, '/embeddings', {
      model: route.model,
      input: call.input,
      encoding_format: 'float',
      ...(call.dimensions ? { dimensions: call.dimensions } : {}),
      ...(call.user ? { user: call.user } : {}),
    });
    if (!Array.isArray(body.data) || body.data.length !== call.input.length) {
      throw new ProviderError(
        `upstream returned ${body.data?.length ?? 'no'} embeddings for ${call.input.length} inputs`,
        'retryable',
      );
    }
    const vectors = new Array<number[]>(call.input.length);
    for (const item of body.data) vectors[item.index] = item.embedding;
    // A repeated or out-of-range index leaves a hole, which would be answered as a missing vector.
    for (let index = 0; index < vectors.length; index++) {
      if (!Array.isArray(vectors[index]))
        throw new ProviderError(`upstream returned no embedding for input ${index}`, 'retryable');
    }
    // Without a count from the upstream, the route's tokenizer's (the catalog's).
    const tokenizer = tokenizerOf(route.tokenizer ?? 'cl100k_base');
    const promptTokens =
      body.usage?.prompt_tokens ??
      body.usage?.total_tokens ??
      call.input.reduce((sum, text) => sum + tokenizer.count(text), 0);
    return { vectors, promptTokens, requestId, ...reportedUsage(body.usage) };
  }

  async chat(route: ResolvedRoute, call: ChatCall): Promise<ChatAnswer> {
    const { body, requestId } = await this.post<OpenAiChatBody>(route, '/chat/completions', {
      ...chatRequestFor(route, call.request),
      stream: false,
    });
    if (!Array.isArray(body.choices) || body.choices.length === 0)
      throw new ProviderError('upstream returned no choices', 'retryable');
    const choices = body.choices.map(wholeChoice);
    const tokenizer = tokenizerOf(route.tokenizer ?? 'cl100k_base');
    return {
      choices,
      promptTokens: body.usage?.prompt_tokens ?? countMessageTokens(call.request.messages, tokenizer),
      completionTokens: body.usage?.completion_tokens ?? countChoiceTokens(choices, tokenizer),
      ...(body.system_fingerprint ? { systemFingerprint: body.system_fingerprint } : {}),
      ...usageDetailsOf(body.usage),
      requestId,
      ...reportedUsage(body.usage),
    };
  }

  /**
   * Passes the upstream's SSE chunks through as they arrive (tool-call deltas included) and puts the whole
   * completion back together for the task's result. Usage is always asked for (stream_options), so tokens are
   * counted even when the caller does not want the usage chunk; without one, the text is counted here.
   */
  async streamChat(
    route: ResolvedRoute,
    call: ChatCall,
    onChunk: (chunk: ChatChunk) => Promise<void>,
    stop: AbortSignal,
  ): Promise<ChatAnswer> {
    const payload = { ...chatRequestFor(route, call.request), stream: true, stream_options: { include_usage: true } };
    const whole = new ChatStreamAccumulator();
    const options = { dispatcher: this.agent, apiKey: route.apiKey, signal: AbortSignal.timeout(this.timeoutMs), stop };
    let chunkId: string | undefined;
    const { requestId } = await streamFromUpstream(
      `${route.baseUrl}/chat/completions`,
      JSON.stringify(payload),
      options,
      async (data) => {
        if (data === '[DONE]') return;
        let chunk: ChatChunk;
        try {
          chunk = JSON.parse(data) as ChatChunk;
        } catch {
          throw new ProviderError('upstream sent a stream event that is not JSON', 'retryable');
        }
        chunkId ??= idOf(chunk.id);
        whole.add(chunk);
        await onChunk(chunk);
      },
    ).catch((error: unknown) => {
      throw error instanceof ProviderError ? withRequestId(error, chunkId) : error;
    });
    const tokenizer = tokenizerOf(route.tokenizer ?? 'cl100k_base');
    return {
      // Without the header, the chunks' `id`: DashScope's compatible mode sends its request id there.
      requestId: requestId ?? chunkId,
      choices: whole.result(stop.aborted),
      promptTokens: whole.usage?.prompt_tokens ?? countMessageTokens(call.request.messages, tokenizer),
      completionTokens: whole.usage?.completion_tokens ?? tokenizer.count(whole.text),
      ...(whole.systemFingerprint ? { systemFingerprint: whole.systemFingerprint } : {}),
      ...usageDetailsOf(whole.usage ?? undefined),
      ...reportedUsage(whole.usage),
    };
  }

  /** OpenAI's POST /responses, for a route whose upstream has it: the request as the api prepared it (`store: false`). */
  async respond(route: ResolvedRoute, call: PassedThroughCall): Promise<ResponsesAnswer> {
    const { body, requestId } = await this.post<unknown>(route, '/responses', {
      ...call.responses,
      model: route.model,
    });
    return responsesAnswerOf(readResponse(body), call, tokenizerOf(route.tokenizer ?? 'cl100k_base'), requestId);
  }

  /**
   * The same, streamed: each event goes to `onEvent` as the upstream sent it, and the whole response is the one its
   * last event carries. An `error` event or a failed response ends the call as a failure.
   */
  async streamRespond(
    route: ResolvedRoute,
    call: PassedThroughCall,
    onEvent: (event: ResponsesStreamEvent) => Promise<void>,
    stop: AbortSignal,
  ): Promise<ResponsesAnswer> {
    const payload = { ...call.responses, model: route.model, stream: true };
    const whole = new ResponsesStreamAccumulator();
    const options = { dispatcher: this.agent, apiKey: route.apiKey, signal: AbortSignal.timeout(this.timeoutMs), stop };
    let responseId: string | undefined;
    const { requestId } = await streamFromUpstream(
      `${route.baseUrl}/responses`,
      JSON.stringify(payload),
      options,
      async (data) => {
        // OpenAI ends with the last event; some compatible servers add chat's end mark.
        if (data === '[DONE]') return;
        const event = parseEvent(data);
        responseId ??= idOf((event.response as { id?: unknown } | undefined)?.id);
        if (event.type === 'error')
          throw new ProviderError(`upstream stream failed: ${String(event.message)}`, 'retryable', undefined, {
            code: typeof event.code === 'string' ? event.code : undefined,
          });
        if (event.type === 'response.failed') readResponse(event.response);
        whole.add(event);
        await onEvent(event);
      },
    );
    // Without the header, the response's own id, as its first event carries it.
    const upstreamId = requestId ?? responseId;
    const tokenizer = tokenizerOf(route.tokenizer ?? 'cl100k_base');
    if (whole.finished) return responsesAnswerOf(readResponse(whole.finished), call, tokenizer, upstreamId);
    if (stop.aborted) return responsesAnswerOf(whole.cancelled(), call, tokenizer, upstreamId);
    throw new ProviderError('upstream stream ended before its response was complete', 'retryable');
  }

  /**
   * OpenAI's POST /images/edits (multipart). Its API has no negative prompt, seed, prompt rewriting or watermark,
   * so those parts of the call are not sent; one image per call, as the worker asks.
   */
  async editImage(route: ResolvedRoute, call: ImageEditCall): Promise<ImageEditAnswer> {
    // One deadline for the edit and any download, so a route slot's lease always outlives the call.
    const signal = AbortSignal.timeout(this.timeoutMs);
    const { body, requestId } = await postToUpstream<OpenAiImagesBody>(
      `${route.baseUrl}/images/edits`,
      imageEditForm(route.model, call),
      {
        dispatcher: this.agent,
        signal,
        apiKey: route.apiKey,
        maxBytes: MAX_IMAGES_ANSWER_BYTES,
      },
    );
    const item = body.data?.[0];
    let image: Buffer;
    if (item?.b64_json) image = decodeInlineImage(item.b64_json, MAX_RESULT_IMAGE_BYTES);
    else if (item?.url)
      image = await downloadImage(item.url, { dispatcher: this.agent, signal, maxBytes: MAX_RESULT_IMAGE_BYTES });
    else throw new ProviderError('upstream returned no image', 'retryable');
    return { image, requestId, ...(item.revised_prompt ? { revisedPrompt: item.revised_prompt } : {}) };
  }

  private post<T>(route: ResolvedRoute, path: string, payload: unknown): Promise<UpstreamAnswer<T>> {
    return postToUpstream<T>(`${route.baseUrl}${path}`, JSON.stringify(payload), {
      dispatcher: this.agent,
      apiKey: route.apiKey,
      // Bounds the whole call, not just each phase, so a route slot's lease always outlives it.
      signal: AbortSignal.timeout(this.timeoutMs),
    });
  }
}

/** The multipart form of an edit: one file part per input, in request order. */
function imageEditForm(model: string, call: ImageEditCall): FormData {
  const form = new FormData();
  form.append('model', model);
  form.append('prompt', call.prompt);
  // OpenAI takes one file as `image` and several as `image[]`.
  const field = call.images.length === 1 ? 'image' : 'image[]';
  call.images.forEach((input, index) => {
    form.append(field, new Blob([input.data], { type: input.mime }), `image-${index + 1}.${extensionOf(input.mime)}`);
  });
  form.append('n', '1');
  if (call.size) form.append('size', `${call.size.width}x${call.size.height}`);
  // gpt-image models always answer base64 and reject the parameter; older models and most compatible servers
  // answer a URL unless asked.
  if (!model.startsWith('gpt-image')) form.append('response_format', 'b64_json');
  return form;
}

function extensionOf(mime: string): string {
  const subtype = mime.split('/')[1] ?? 'png';
  return subtype === 'jpeg' ? 'jpg' : subtype;
}

function parseEvent(data: string): ResponsesStreamEvent {
  try {
    const event = JSON.parse(data) as ResponsesStreamEvent;
    if (typeof event?.type === 'string') return event;
  } catch {
    // answered below
  }
  throw new ProviderError('upstream sent a stream event that is not a Responses event', 'retryable');
}

/** An upstream choice as OpenAI answers it, with the fields a client reads always present. */
function wholeChoice(choice: Partial<ChatChoice>, position: number): ChatChoice {
  const message = choice.message ?? { role: 'assistant', content: '' };
  return {
    ...choice,
    index: choice.index ?? position,
    message: { ...message, role: 'assistant', content: message.content ?? null },
    finish_reason: choice.finish_reason ?? 'stop',
    logprobs: choice.logprobs ?? null,
  };
}

/** The upstream's token breakdowns (cached, reasoning, audio tokens), passed on as it sent them. */
function usageDetailsOf(usage: Record<string, unknown> | undefined): Pick<ChatAnswer, 'usageDetails'> {
  const details = Object.fromEntries(
    Object.entries(usage ?? {}).filter(([field, value]) => field.endsWith('_details') && value),
  );
  return Object.keys(details).length > 0 ? { usageDetails: details } : {};
}
