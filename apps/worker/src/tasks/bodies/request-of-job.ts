import { ENDPOINTS } from '@gateway/contracts';
import type { ChatJob, EmbeddingsJob, ImageEditJob, ImageInputRef, PayloadOf, TaskQueueName } from '@gateway/queue';
import { notKept } from './kept-body';

/**
 * The request as the gateway took it, rebuilt from the job in the endpoint's wire names: the caller's validated
 * fields and what the gateway filled in (a default, an image-edit seed). A Responses call shows the request its
 * upstream is sent, or its chat translation. An image edit's images are never kept: each base64 image is a note of
 * its size, a stored one a note, a URL stays a URL.
 */
export function requestOfJob(job: PayloadOf<TaskQueueName>): Record<string, unknown> {
  switch (job.endpoint) {
    case ENDPOINTS.embeddings.name:
      return embeddingsRequest(job as EmbeddingsJob);
    case ENDPOINTS.imageEdit.name:
      return imageEditRequest(job as ImageEditJob);
    case ENDPOINTS.responses.name: {
      const chat = job as ChatJob;
      const fields = { ...(chat.responses?.upstream ?? chat.request), ...(chat.stream ? { stream: true } : {}) };
      // The public model id, first, whatever the upstream's request names.
      return Object.assign({ model: chat.model }, fields, { model: chat.model });
    }
    default:
      return chatRequest(job as ChatJob);
  }
}

function embeddingsRequest(job: EmbeddingsJob): Record<string, unknown> {
  return {
    model: job.model,
    input: job.input,
    encoding_format: job.encodingFormat,
    dimensions: job.dimensions,
    ...(job.user !== undefined ? { user: job.user } : {}),
  };
}

function chatRequest(job: ChatJob): Record<string, unknown> {
  const stream = job.stream
    ? { stream: true, ...(job.stream.includeUsage ? { stream_options: { include_usage: true } } : {}) }
    : {};
  return { model: job.model, ...job.request, ...stream };
}

function imageEditRequest(job: ImageEditJob): Record<string, unknown> {
  const content: Record<string, string>[] = [];
  job.images.forEach((image, i) => (content[job.imageIndexes[i]] = { image: imageNote(image) }));
  const textAt = content.length === job.images.length ? content.length : content.findIndex((item) => !item);
  content[textAt] = { text: job.prompt };
  return {
    model: job.model,
    input: { messages: [{ role: 'user', content: Array.from(content, (item) => item ?? {}) }] },
    parameters: {
      n: job.n,
      ...(job.size ? { size: `${job.size.width}*${job.size.height}` } : {}),
      ...(job.negativePrompt !== undefined ? { negative_prompt: job.negativePrompt } : {}),
      ...(job.promptExtend !== undefined ? { prompt_extend: job.promptExtend } : {}),
      seed: job.seed,
      watermark: job.watermark,
    },
  };
}

function imageNote(image: ImageInputRef): string {
  if ('url' in image) return image.url;
  if ('inline' in image) return notKept('image', image.inline);
  return '[image not kept: held for the task as a stored input]';
}
