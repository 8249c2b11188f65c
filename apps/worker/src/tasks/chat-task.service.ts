import { CatalogService, tokenCost } from '@gateway/catalog';
import { ProviderRouter } from '@gateway/providers';
import { ChatJob } from '@gateway/queue';
import { Injectable } from '@nestjs/common';
import { ExecutedTask } from './task-processor';

/** A non-streaming chat completion through the model's routes, answered in the OpenAI shape. */
@Injectable()
export class ChatTaskService {
  constructor(private readonly catalog: CatalogService, private readonly router: ProviderRouter) {}

  async execute(job: ChatJob): Promise<ExecutedTask> {
    const spec = this.catalog.find(job.resolvedModel)!;
    const answer = await this.router.call(spec.id, this.catalog.routesOf(spec.id), 'chat', (provider, route) =>
      provider.chat!(route, {
        messages: job.messages,
        maxTokens: job.maxTokens,
        temperature: job.temperature,
        topP: job.topP,
        stop: job.stop,
        seed: job.seed,
        user: job.user,
      }),
    );
    const { content, finishReason, promptTokens, completionTokens } = answer.value;
    const usage = { prompt_tokens: promptTokens, completion_tokens: completionTokens, total_tokens: promptTokens + completionTokens };
    return {
      body: JSON.stringify({
        id: `chatcmpl-${job.taskId.slice(5)}`,
        object: 'chat.completion',
        created: Math.floor(Date.now() / 1000),
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
}
