import { GatewayError, LOGGER } from '@gateway/common';
import { DecodedImage, ImageInputError, ImageStore, decodeImage } from '@gateway/imaging';
import { FetchFailedError, FetchReach, SafeFetcher, UnsafeUrlError } from '@gateway/outbound';
import { ImageEditJob, imageParam, ImageInputRef, storedInputsOf } from '@gateway/queue';
import { Inject, Injectable } from '@nestjs/common';
import { Logger } from 'pino';

/** A job's input, decoded; for one given as a URL, how the worker fetched it (whether an upstream could alike). */
export interface LoadedImage extends DecodedImage {
  reach?: FetchReach;
}

/** Turns a job's image references into decoded images; any image that cannot be had is the caller's 400, naming it. */
@Injectable()
export class ImageInputs {
  constructor(
    private readonly store: ImageStore,
    private readonly fetcher: SafeFetcher,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  load(job: ImageEditJob): Promise<LoadedImage[]> {
    return Promise.all(job.images.map((ref, index) => this.loadOne(ref, imageParam(job.imageIndexes[index] ?? index))));
  }

  /** Deletes the job's stored images once it will not run again. */
  async discard(job: ImageEditJob): Promise<void> {
    const stored = storedInputsOf(job);
    if (stored.length === 0) return;
    // The maintenance sweep deletes what this misses once IMAGE_INPUT_TTL has passed.
    await this.store
      .deleteInputs(stored)
      .catch((error) =>
        this.logger.warn({ taskId: job.taskId, err: (error as Error).message }, 'could not delete stored inputs'),
      );
  }

  private async loadOne(ref: ImageInputRef, param: string): Promise<LoadedImage> {
    try {
      const { bytes, reach } = await this.bytesOf(ref);
      return { ...(await decodeImage(bytes)), ...(reach ? { reach } : {}) };
    } catch (error) {
      if (error instanceof ImageInputError || error instanceof UnsafeUrlError || error instanceof FetchFailedError) {
        throw new GatewayError('InvalidImage', `${error.message} (${param})`, { param });
      }
      throw error;
    }
  }

  private async bytesOf(ref: ImageInputRef): Promise<{ bytes: Buffer; reach?: FetchReach }> {
    if ('inline' in ref) return { bytes: Buffer.from(ref.inline, 'base64') };
    if ('url' in ref) return this.fetcher.fetch(ref.url);
    const bytes = await this.store.readInput(ref.stored);
    // Inputs live until the task is final or IMAGE_INPUT_TTL passes; a job older than that lost its image.
    if (!bytes) throw new ImageInputError('the stored image is no longer available; send the request again');
    return { bytes };
  }
}
