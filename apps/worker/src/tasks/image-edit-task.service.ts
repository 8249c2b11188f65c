import { CatalogService, ModelSpec } from '@gateway/catalog';
import { AppConfig, GatewayError } from '@gateway/common';
import { DecodedImage, FileUrlSigner, ImageStore, OutputSize, outputGeometry, stampWatermark } from '@gateway/imaging';
import { ImageBilling, Pricing } from '@gateway/metering';
import { countTokens, ProviderRouter } from '@gateway/providers';
import { ImageEditJob, QueueName } from '@gateway/queue';
import { Injectable } from '@nestjs/common';
import sharp from 'sharp';
import { ImageInputs } from './image-inputs.service';
import { ExecutedTask, TaskService } from './task-service';

const SEED_SPACE = 2147483648;

interface DeliveredImage {
  index: number;
  fileId: string;
  revisedPrompt: string;
  provider: string;
}

/**
 * One image edit: decode the inputs, generate the n outputs (one provider call each, so every image succeeds or
 * fails on its own), store each in GridFS behind a signed URL and bill it once (docs/contracts.md).
 */
@Injectable()
export class ImageEditTaskService implements TaskService<QueueName.ImageEdit> {
  constructor(
    private readonly config: AppConfig,
    private readonly catalog: CatalogService,
    private readonly router: ProviderRouter,
    private readonly inputs: ImageInputs,
    private readonly store: ImageStore,
    private readonly signer: FileUrlSigner,
    private readonly pricing: Pricing,
    private readonly billing: ImageBilling,
  ) {}

  /** A retryable failure runs again and needs its inputs; once the job is final they go. */
  cleanUp(job: ImageEditJob): Promise<void> {
    return this.inputs.discard(job);
  }

  async execute(job: ImageEditJob): Promise<ExecutedTask> {
    const spec = this.catalog.get(job.resolvedModel);
    const images = await this.inputs.load(job);
    const output = outputGeometry(images[images.length - 1], job.size);
    const expiresAt = new Date(Date.now() + this.config.IMAGE_URL_TTL * 1000);
    const started = performance.now();

    const attempts = await Promise.allSettled(
      Array.from({ length: job.n }, (_, index) => this.generate(spec, job, images, output, index, expiresAt)),
    );
    const providerMs = performance.now() - started;
    // A provider's refusal fails its image only; anything else (storage, database) fails the attempt, which BullMQ
    // retries, and stored images and bills repeat idempotently.
    const broken = attempts.find(
      (attempt): attempt is PromiseRejectedResult =>
        attempt.status === 'rejected' && !(attempt.reason instanceof GatewayError),
    );
    if (broken) throw broken.reason;
    const delivered = attempts.flatMap((attempt) => (attempt.status === 'fulfilled' ? [attempt.value] : []));
    if (delivered.length === 0) throw firstFailure(attempts);

    const promptTokens = countTokens(job.prompt);
    const usage = { prompt_tokens: promptTokens, total_tokens: promptTokens, images: delivered.length };
    return {
      body: JSON.stringify({
        created: Math.floor(Date.now() / 1000),
        data: delivered.map((image) => ({
          url: job.publicBaseUrl + this.signer.path(image.fileId, expiresAt),
          revised_prompt: image.revisedPrompt,
        })),
        usage: {
          image_count: delivered.length,
          ...(delivered.length < job.n ? { failed_count: job.n - delivered.length } : {}),
        },
      }),
      usage,
      provider: delivered[0].provider,
      providerMs,
      costNanos: this.pricing.imageCostNanos(spec, delivered.length),
    };
  }

  /** Output `index`: a seeded variation, the same image whenever the job runs again. */
  private async generate(
    spec: ModelSpec,
    job: ImageEditJob,
    images: DecodedImage[],
    output: OutputSize,
    index: number,
    expiresAt: Date,
  ): Promise<DeliveredImage> {
    const answer = await this.router.editImage(spec.id, {
      images: images.map((image) => ({
        data: image.data,
        mime: mimeOf(image),
        width: image.width,
        height: image.height,
      })),
      prompt: job.prompt,
      negativePrompt: job.negativePrompt,
      size: job.size,
      seed: (job.seed + index) % SEED_SPACE,
      variation: index,
      promptExtend: job.promptExtend,
      watermark: job.watermark,
    });
    const fitted = answer.value.shaped ? answer.value.image : await fitToOutput(answer.value.image, output);
    const png = job.watermark && !answer.value.watermarked ? await stampWatermark(fitted) : fitted;
    const fileId = `${job.taskId.replace(/^task_/, 'img_')}_${index}`;
    await this.store.saveImage(fileId, png, { appId: job.appId, taskId: job.taskId, index, expiresAt });
    // Billed as soon as it is stored: a rerun after a crash regenerates it under the same (task, index), billed once.
    await this.billing.billImage(job, spec, index);
    return { index, fileId, revisedPrompt: answer.value.revisedPrompt ?? job.prompt, provider: answer.route.provider };
  }
}

/** Every output is a PNG of exactly the promised size, whatever the upstream returned (docs/contracts.md). */
async function fitToOutput(image: Buffer, output: OutputSize): Promise<Buffer> {
  const metadata = await sharp(image).metadata();
  if (metadata.format === 'png' && metadata.width === output.width && metadata.height === output.height) return image;
  return sharp(image).resize(output.width, output.height, { fit: 'cover' }).png().toBuffer();
}

function mimeOf(image: DecodedImage): string {
  return image.format === 'bmp' || image.format === 'gif' ? 'image/png' : `image/${image.format}`;
}

function firstFailure(attempts: PromiseSettledResult<DeliveredImage>[]): unknown {
  const rejected = attempts.find((attempt): attempt is PromiseRejectedResult => attempt.status === 'rejected');
  return rejected?.reason ?? new GatewayError('InternalError', 'no image was generated');
}
