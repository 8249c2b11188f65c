import { CatalogService, ModelSpec, Pricing, tokenizerOf } from '@gateway/catalog';
import { AppConfig, GatewayError, imagesCostNanos } from '@gateway/common';
import { UpstreamAttempt } from '@gateway/contracts';
import { DecodedImage, FileUrlSigner, ImageStore, OutputSize, outputGeometry, stampWatermark } from '@gateway/imaging';
import type { FetchReach } from '@gateway/outbound';
import { ImageEditInput, ProviderRouter } from '@gateway/providers';
import { ImageEditJob, QueueName } from '@gateway/queue';
import { Injectable } from '@nestjs/common';
import sharp from 'sharp';
import { ImageInputs, LoadedImage } from './image-inputs.service';
import { ExecutedTask, TaskService } from './task-service';

const SEED_SPACE = 2147483648;

interface DeliveredImage {
  index: number;
  fileId: string;
  revisedPrompt: string;
  provider: string;
  /** The route whose call made it; absent for one an earlier run of the job stored. */
  route?: string;
  /** What the image is billed: the unit price of the route that made it. */
  unitPriceNanos: number;
}

/**
 * One image edit: decode the inputs, generate the n outputs (one provider call each, so every image succeeds or
 * fails on its own) and store each in GridFS behind a signed URL. The delivered images are billed with the task's
 * record (billedImages, RecordWriter), so a task that fails as a whole bills nothing (docs/contracts.md).
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
  ) {}

  /** A retryable failure runs again and needs its inputs; once the job is final they go. */
  cleanUp(job: ImageEditJob): Promise<void> {
    return this.inputs.discard(job);
  }

  async execute(job: ImageEditJob, upstreamCalls?: UpstreamAttempt[]): Promise<ExecutedTask> {
    const spec = this.catalog.get(job.resolvedModel);
    const images = await this.inputs.load(job);
    const output = outputGeometry(images[images.length - 1], job.size);
    const expiresAt = new Date(Date.now() + this.config.IMAGE_URL_TTL * 1000);
    const started = performance.now();
    const inputs = images.map((image, position) => ({
      data: image.data,
      mime: mimeOf(image),
      width: image.width,
      height: image.height,
      sourceBytes: image.sourceBytes,
      ...urlOf(job.images[position], image),
    }));
    // Once for the n calls, and before the first takes its paced turn, so that each reaches the upstream at its turn.
    await this.router.prepareImages(spec.id, inputs);

    const attempts = await Promise.allSettled(
      Array.from({ length: job.n }, (_, index) =>
        this.deliver(spec, job, inputs, output, index, expiresAt, upstreamCalls),
      ),
    );
    const providerMs = performance.now() - started;
    // A provider's refusal fails its image only; anything else (storage, database) fails the attempt, which BullMQ
    // retries, finding the images it stored.
    const broken = attempts.find(
      (attempt): attempt is PromiseRejectedResult =>
        attempt.status === 'rejected' && !(attempt.reason instanceof GatewayError),
    );
    if (broken) throw broken.reason;
    const delivered = attempts.flatMap((attempt) => (attempt.status === 'fulfilled' ? [attempt.value] : []));
    if (delivered.length === 0) throw firstFailure(attempts);

    // Counted by the model's tokenizer (Qwen's for DashScope's image models), which no image answer reports.
    const promptTokens = tokenizerOf(spec.tokenizer).count(job.prompt);
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
      billedImages: delivered.map(({ index, route, unitPriceNanos }) => ({
        index,
        ...(route ? { route } : {}),
        unitPriceNanos,
        currency: this.pricing.currency,
      })),
      costNanos: imagesCostNanos(delivered.map((image) => image.unitPriceNanos)),
    };
  }

  /**
   * Output `index`: a seeded variation, the same image whenever the job runs again. A rerun (after a crash, or a
   * storage failure of another image) finds an image already stored and keeps it: generating it again would be
   * billed again upstream.
   */
  private async deliver(
    spec: ModelSpec,
    job: ImageEditJob,
    inputs: ImageEditInput[],
    output: OutputSize,
    index: number,
    expiresAt: Date,
    upstreamCalls?: UpstreamAttempt[],
  ): Promise<DeliveredImage> {
    const fileId = `${job.taskId.replace(/^task_/, 'img_')}_${index}`;
    const stored = await this.store.imageMetadata(fileId);
    if (stored) {
      const unitPriceNanos = stored.unitPriceNanos ?? this.pricing.imageUnitPriceNanos(spec);
      return { index, fileId, revisedPrompt: job.prompt, provider: stored.provider ?? 'unknown', unitPriceNanos };
    }
    const answer = await this.router.editImage(
      spec.id,
      {
        images: inputs,
        prompt: job.prompt,
        negativePrompt: job.negativePrompt,
        size: job.size,
        seed: (job.seed + index) % SEED_SPACE,
        variation: index,
        promptExtend: job.promptExtend,
        watermark: job.watermark,
      },
      { taskId: job.taskId, attempts: upstreamCalls },
    );
    const { image, shaped, watermarked } = answer.value;
    // An upstream's own mark sits in a corner: fitted by letterboxing, so cropping cannot cut it away.
    const fitted = shaped
      ? image
      : await fitToOutput(image, output, watermarked && job.watermark ? 'contain' : 'cover');
    const png = job.watermark && !watermarked ? await stampWatermark(fitted) : fitted;
    const provider = answer.route.provider;
    // The price of what served: after an upstream generation that may have been made (spent), the local engine's.
    const unitPriceNanos = this.pricing.imageUnitPriceNanos(spec, answer.route);
    await this.store.saveImage(fileId, png, {
      appId: job.appId,
      taskId: job.taskId,
      index,
      expiresAt,
      provider,
      unitPriceNanos,
    });
    // Stored with its price: a rerun finds it stored (above) and bills what served.
    // What the upstream reports it rewrote the prompt to, if it does; otherwise the prompt it was sent.
    return {
      index,
      fileId,
      revisedPrompt: answer.value.revisedPrompt ?? job.prompt,
      provider,
      route: answer.route.key,
      unitPriceNanos,
    };
  }
}

/**
 * Every output is a PNG of exactly the promised size, whatever the upstream returned (docs/contracts.md): cropped to
 * fill it, or letterboxed on transparency when nothing may be cropped away.
 */
async function fitToOutput(image: Buffer, output: OutputSize, fit: 'cover' | 'contain'): Promise<Buffer> {
  const metadata = await sharp(image).metadata();
  if (metadata.format === 'png' && metadata.width === output.width && metadata.height === output.height) return image;
  return sharp(image)
    .resize(output.width, output.height, { fit, background: { r: 0, g: 0, b: 0, alpha: 0 } })
    .png()
    .toBuffer();
}

/**
 * The caller's URL of an input given as one, with how the worker fetched it: an upstream that fetches URLs may be
 * sent the URL instead of bytes when it would find there what the worker found.
 */
function urlOf(
  ref: ImageEditJob['images'][number] | undefined,
  image: LoadedImage,
): { url?: string; reach?: FetchReach } {
  return ref && 'url' in ref ? { url: ref.url, ...(image.reach ? { reach: image.reach } : {}) } : {};
}

function mimeOf(image: DecodedImage): string {
  return image.format === 'bmp' || image.format === 'gif' ? 'image/png' : `image/${image.format}`;
}

function firstFailure(attempts: PromiseSettledResult<DeliveredImage>[]): unknown {
  const rejected = attempts.find((attempt): attempt is PromiseRejectedResult => attempt.status === 'rejected');
  return rejected?.reason ?? new GatewayError('InternalError', 'no image was generated');
}
