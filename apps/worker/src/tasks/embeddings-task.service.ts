import { endianness } from 'node:os';
import { CatalogService, Pricing } from '@gateway/catalog';
import { GatewayError } from '@gateway/common';
import { UpstreamAttempt } from '@gateway/contracts';
import { ProviderRouter } from '@gateway/providers';
import { EmbeddingsJob, QueueName } from '@gateway/queue';
import { Injectable } from '@nestjs/common';
import { ExecutedTask, TaskService } from './task-service';

/**
 * Embeds a request's inputs through the model's routes and shapes the OpenAI-compatible response. A route that takes
 * fewer inputs a call gets them in parts (ProviderRouter.embed); the answer is still one, billed once on its summed
 * usage.
 */
@Injectable()
export class EmbeddingsTaskService implements TaskService<QueueName.Embeddings> {
  constructor(
    private readonly catalog: CatalogService,
    private readonly router: ProviderRouter,
    private readonly pricing: Pricing,
  ) {}

  async execute(job: EmbeddingsJob, upstreamCalls?: UpstreamAttempt[]): Promise<ExecutedTask> {
    const spec = this.catalog.get(job.resolvedModel);
    const answer = await this.router.embed(
      spec.id,
      { input: job.input, dimensions: job.dimensions, user: job.user },
      { taskId: job.taskId, attempts: upstreamCalls },
    );
    const vectors = answer.value.vectors.map((vector, index) => fitDimensions(vector, job.dimensions, index));
    const promptTokens = answer.value.promptTokens;
    return {
      body: JSON.stringify({
        object: 'list',
        data: vectors.map((vector, index) => ({
          object: 'embedding',
          index,
          embedding: job.encodingFormat === 'base64' ? toBase64(vector) : vector,
        })),
        // The id the caller wrote (OpenAI clients compare it), unless a stand-in served it from another space.
        model: spec.standsIn?.for === job.model ? spec.id : job.model,
        usage: { prompt_tokens: promptTokens, total_tokens: promptTokens },
      }),
      usage: { prompt_tokens: promptTokens, total_tokens: promptTokens },
      provider: answer.route.provider,
      route: answer.route.key,
      providerMs: answer.providerMs,
      costNanos: this.pricing.tokenCostNanos(spec, promptTokens, 0, answer.route),
    };
  }
}

/**
 * Upstreams that ignore `dimensions` return their full vector: the models served here are Matryoshka-trained,
 * so the leading components re-normalised are the shorter embedding.
 */
function fitDimensions(vector: number[], dimensions: number, index: number): number[] {
  if (vector.length === dimensions) return vector;
  if (vector.length < dimensions) {
    throw new GatewayError(
      'UpstreamError',
      `the upstream returned ${vector.length} dimensions for input ${index}, ${dimensions} were asked`,
    );
  }
  const head = vector.slice(0, dimensions);
  const norm = Math.sqrt(head.reduce((sum, x) => sum + x * x, 0)) || 1;
  return head.map((x) => x / norm);
}

/** OpenAI's base64 convention: little-endian float32 bytes. */
function toBase64(vector: number[]): string {
  const floats = new Float32Array(vector);
  const bytes = Buffer.from(floats.buffer, floats.byteOffset, floats.byteLength);
  if (endianness() === 'BE') bytes.swap32();
  return bytes.toString('base64');
}
