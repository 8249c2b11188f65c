import { CatalogService, Pricing } from '@gateway/catalog';
import { UpstreamAttempt } from '@gateway/contracts';
import { ChatAnswer, ChatCall, ChatChunk, ProviderRouter, RoutedAnswer } from '@gateway/providers';
import { ChatJob, QueueName } from '@gateway/queue';
import { ChunkStreams } from '@gateway/redis';
import { Injectable } from '@nestjs/common';
import { isResponsesTask, keptConversation } from './responses/responses-answer';
import { AnsweredChat, ResponsesRunner } from './responses/responses-runner.service';
import { ExecutedTask, TaskService } from './task-service';
import { intoTaskStream } from './task-stream';

/**
 * A chat completion through the model's routes, answered in the OpenAI shape. With `stream`, each chunk is also
 * appended to the task's Redis Stream as it arrives (docs/architecture.md), and the whole completion is still the task's
 * result, so GET /v1/tasks shows it like any other. A POST /v1/responses task is answered in the Responses shape
 * instead (ResponsesRunner): a `response` object, streamed as its events.
 */
@Injectable()
export class ChatTaskService implements TaskService<QueueName.Chat> {
  constructor(
    private readonly catalog: CatalogService,
    private readonly router: ProviderRouter,
    private readonly pricing: Pricing,
    private readonly streams: ChunkStreams,
    private readonly responses: ResponsesRunner,
  ) {}

  async execute(job: ChatJob, upstreamCalls?: UpstreamAttempt[]): Promise<ExecutedTask> {
    const spec = this.catalog.get(job.resolvedModel);
    const answered = isResponsesTask(job)
      ? await this.responses.run(spec.id, job, upstreamCalls)
      : await this.complete(spec.id, job, upstreamCalls);
    const { promptTokens, completionTokens } = answered;
    return {
      body: answered.body,
      conversation: keptConversation(job),
      usage: {
        prompt_tokens: promptTokens,
        completion_tokens: completionTokens,
        total_tokens: promptTokens + completionTokens,
      },
      provider: answered.route.provider,
      route: answered.route.key,
      providerMs: answered.providerMs,
      costNanos: this.pricing.tokenCostNanos(spec, promptTokens, completionTokens, answered.route),
    };
  }

  private async complete(modelId: string, job: ChatJob, upstreamCalls?: UpstreamAttempt[]): Promise<AnsweredChat> {
    const answer = job.stream
      ? await this.stream(modelId, job, job.stream, upstreamCalls)
      : await this.router.chat(modelId, chatCall(job), { taskId: job.taskId, attempts: upstreamCalls });
    const { choices, promptTokens, completionTokens, systemFingerprint, usageDetails } = answer.value;
    const body = JSON.stringify({
      id: completionId(job),
      object: 'chat.completion',
      created: Math.floor(job.createdAt / 1000),
      model: job.model,
      choices,
      usage: {
        prompt_tokens: promptTokens,
        completion_tokens: completionTokens,
        total_tokens: promptTokens + completionTokens,
        ...usageDetails,
      },
      system_fingerprint: systemFingerprint ?? null,
    });
    return { body, promptTokens, completionTokens, route: answer.route, providerMs: answer.providerMs };
  }

  /**
   * Chunks carry our completion id and the model id the caller used; the usage chunk goes out only if asked for.
   * A client that went away stops generation at the next chunk.
   */
  private stream(
    modelId: string,
    job: ChatJob,
    options: NonNullable<ChatJob['stream']>,
    upstreamCalls?: UpstreamAttempt[],
  ): Promise<RoutedAnswer<ChatAnswer>> {
    return intoTaskStream(this.streams, job.taskId, ({ append, stop, onRoute }) => {
      const forward = async (chunk: ChatChunk) => {
        if (chunk.usage && (chunk.choices?.length ?? 0) === 0 && !options.includeUsage) return;
        const relayed = {
          created: Math.floor(job.createdAt / 1000),
          ...chunk,
          id: completionId(job),
          model: job.model,
        };
        await append({ chunk: JSON.stringify(relayed) });
      };
      return this.router.streamChat(modelId, chatCall(job), forward, stop, {
        taskId: job.taskId,
        attempts: upstreamCalls,
        onRoute,
      });
    });
  }
}

function chatCall(job: ChatJob): ChatCall {
  return { request: job.request, features: job.features };
}

function completionId(job: ChatJob): string {
  return `chatcmpl-${job.taskId.slice(5)}`;
}
