import { CatalogService } from '@gateway/catalog';
import { GatewayError } from '@gateway/common';
import { ResponseObject, UpstreamAttempt } from '@gateway/contracts';
import { Pricing } from '@gateway/metering';
import { ChatAnswer, ChatCall, ChatChunk, ProviderRouter, RoutedAnswer } from '@gateway/providers';
import { ChatJob, ChunkStreams, QueueName, StreamEntry } from '@gateway/queue';
import { Injectable } from '@nestjs/common';
import { ResponseEventStream } from './responses/response-events';
import { isResponsesTask, keptConversation, responsesBody } from './responses/responses-answer';
import { ExecutedTask, TaskService } from './task-service';

/**
 * A chat completion through the model's routes, answered in the OpenAI shape. With `stream`, each chunk is also
 * appended to the task's Redis Stream as it arrives (docs/architecture.md), and the whole completion is still the task's
 * result, so GET /v1/tasks shows it like any other. A POST /v1/responses task is answered in the Responses shape
 * instead (./responses): a `response` object, streamed as its events.
 */
@Injectable()
export class ChatTaskService implements TaskService<QueueName.Chat> {
  constructor(
    private readonly catalog: CatalogService,
    private readonly router: ProviderRouter,
    private readonly pricing: Pricing,
    private readonly streams: ChunkStreams,
  ) {}

  async execute(job: ChatJob, upstreamCalls?: UpstreamAttempt[]): Promise<ExecutedTask> {
    const spec = this.catalog.get(job.resolvedModel);
    const answer = job.stream
      ? await this.stream(spec.id, job, job.stream, upstreamCalls)
      : await this.router.chat(spec.id, chatCall(job), upstreamCalls);
    const { choices, promptTokens, completionTokens, systemFingerprint, usageDetails } = answer.value;
    const usage = {
      prompt_tokens: promptTokens,
      completion_tokens: completionTokens,
      total_tokens: promptTokens + completionTokens,
    };
    return {
      body: isResponsesTask(job)
        ? responsesBody(job, answer)
        : JSON.stringify({
            id: completionId(job),
            object: 'chat.completion',
            created: Math.floor(job.createdAt / 1000),
            model: job.model,
            choices,
            usage: { ...usage, ...usageDetails },
            system_fingerprint: systemFingerprint ?? null,
          }),
      conversation: keptConversation(job),
      usage,
      provider: answer.route.provider,
      providerMs: answer.providerMs,
      costNanos: this.pricing.tokenCostNanos(spec, promptTokens, completionTokens),
    };
  }

  /**
   * Chunks carry our completion id and the model id the caller used; the usage chunk goes out only if asked for.
   * A client that went away stops generation at the next chunk.
   */
  private async stream(
    modelId: string,
    job: ChatJob,
    options: NonNullable<ChatJob['stream']>,
    upstreamCalls?: UpstreamAttempt[],
  ): Promise<RoutedAnswer<ChatAnswer> & { response?: ResponseObject }> {
    const stop = new AbortController();
    const append = async (entry: StreamEntry) => {
      const { cancelled } = await this.streams.append(job.taskId, entry);
      if (cancelled) stop.abort();
    };
    const events = isResponsesTask(job) ? new ResponseEventStream(job, append) : undefined;
    const forward = async (chunk: ChatChunk) => {
      if (events) return events.add(chunk);
      if (chunk.usage && (chunk.choices?.length ?? 0) === 0 && !options.includeUsage) return;
      const relayed = { created: Math.floor(job.createdAt / 1000), ...chunk, id: completionId(job), model: job.model };
      await append({ chunk: JSON.stringify(relayed) });
    };
    try {
      const answer = await this.router.streamChat(modelId, chatCall(job), forward, stop.signal, upstreamCalls);
      const response = await events?.finish(answer.value);
      await this.streams.append(job.taskId, { done: true });
      return { ...answer, response };
    } catch (error) {
      const failure =
        error instanceof GatewayError
          ? error
          : new GatewayError('InternalError', 'the stream failed inside the gateway');
      await this.streams.append(job.taskId, { error: failure.toJSON() }).catch(() => undefined);
      throw error;
    }
  }
}

function chatCall(job: ChatJob): ChatCall {
  return { request: job.request, features: job.features };
}

function completionId(job: ChatJob): string {
  return `chatcmpl-${job.taskId.slice(5)}`;
}
