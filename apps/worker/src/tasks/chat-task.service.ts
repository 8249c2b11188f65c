import { CatalogService, ModelSpec, tokenCost } from '@gateway/catalog';
import { GatewayError } from '@gateway/common';
import { ChatAnswer, ChatChunk, ProviderError, ProviderRouter, RoutedAnswer } from '@gateway/providers';
import { ChatJob, TaskStreams } from '@gateway/queue';
import { Injectable } from '@nestjs/common';
import { ExecutedTask } from './task-processor';

/**
 * A chat completion through the model's routes, answered in the OpenAI shape. With `stream`, each chunk is also
 * appended to the task's Redis Stream as it arrives (docs/architecture.md), and the whole completion is still the task's
 * result, so GET /v1/tasks shows it like any other.
 */
@Injectable()
export class ChatTaskService {
  constructor(private readonly catalog: CatalogService, private readonly router: ProviderRouter, private readonly streams: TaskStreams) {}

  async execute(job: ChatJob): Promise<ExecutedTask> {
    const spec = this.catalog.find(job.resolvedModel)!;
    const answer = job.stream ? await this.stream(spec, job) : await this.complete(spec, job);
    const { content, finishReason, promptTokens, completionTokens } = answer.value;
    const usage = { prompt_tokens: promptTokens, completion_tokens: completionTokens, total_tokens: promptTokens + completionTokens };
    return {
      body: JSON.stringify({
        id: completionId(job),
        object: 'chat.completion',
        created: Math.floor(job.createdAt / 1000),
        model: job.model,
        choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: finishReason }],
        usage,
      }),
      usage,
      provider: answer.route.provider,
      providerMs: answer.providerMs,
      cost: tokenCost(spec, promptTokens, completionTokens),
    };
  }

  private complete(spec: ModelSpec, job: ChatJob): Promise<RoutedAnswer<ChatAnswer>> {
    return this.router.call(spec.id, this.catalog.routesOf(spec.id), 'chat', (provider, route) => provider.chat!(route, chatCall(job)));
  }

  /**
   * Chunks carry our completion id and the model id the caller used; the usage chunk goes out only if asked for.
   * Once a chunk has reached the client, a failure ends the stream instead of retrying or falling back, which
   * would repeat text the client already has.
   */
  private async stream(spec: ModelSpec, job: ChatJob): Promise<RoutedAnswer<ChatAnswer>> {
    const stop = new AbortController();
    let sent = 0;
    const forward = async (chunk: ChatChunk) => {
      if (chunk.usage && (chunk.choices?.length ?? 0) === 0 && !job.stream!.includeUsage) return;
      const relayed = { created: Math.floor(job.createdAt / 1000), ...chunk, id: completionId(job), model: job.model };
      const { cancelled } = await this.streams.append(job.taskId, { chunk: JSON.stringify(relayed) });
      sent++;
      if (cancelled) stop.abort();
    };
    try {
      const answer = await this.router.call(spec.id, this.catalog.routesOf(spec.id), 'chatStream', async (provider, route) => {
        try {
          return await provider.chatStream!(route, chatCall(job), forward, stop.signal);
        } catch (error) {
          if (sent > 0 && error instanceof ProviderError) throw new GatewayError('UpstreamError', `the upstream stream broke off: ${error.message}`);
          throw error;
        }
      });
      await this.streams.append(job.taskId, { done: true });
      return answer;
    } catch (error) {
      const failure = error instanceof GatewayError ? error : new GatewayError('InternalError', 'the stream failed inside the gateway');
      await this.streams.append(job.taskId, { error: failure.toJSON() }).catch(() => undefined);
      throw error;
    }
  }
}

function chatCall(job: ChatJob) {
  return { messages: job.messages, maxTokens: job.maxTokens, temperature: job.temperature, topP: job.topP, stop: job.stop, seed: job.seed, user: job.user };
}

function completionId(job: ChatJob): string {
  return `chatcmpl-${job.taskId.slice(5)}`;
}
