import { randomInt } from 'node:crypto';
import { CatalogService, ModelSpec } from '@gateway/catalog';
import { GatewayError } from '@gateway/common';
import { ENDPOINTS } from '@gateway/contracts';
import { ImageInputError, decodeBase64Image, isImageUrl, probeImage } from '@gateway/imaging';
import { ImageEditJob, imageParam, TaskEnvelope } from '@gateway/queue';
import { Injectable } from '@nestjs/common';
import { ImageEditContentDto, ImageEditRequestDto } from './image-edit.dto';

const MAX_TEXT_CODE_POINTS = 800;
const MAX_NEGATIVE_PROMPT_CODE_POINTS = 500;
const SIZE_RANGE = { min: 512, max: 2048 };
const MAX_URL_LENGTH = 2048;
/** The family that takes size and prompt_extend, named when another model is sent them. */
const FULL_FEATURED_FAMILY = 'x-image-edit-plus';

/** An image as the caller sent it: a URL for the worker to fetch, or bytes already decoded and probed. */
export type CheckedImage = { url: string } | { bytes: Buffer };

/** The job's request, except that images are not stored yet (that waits for admission) and the origin is unknown. */
export type CheckedImageEdit = Omit<ImageEditJob, keyof TaskEnvelope | 'images' | 'publicBaseUrl'> & {
  spec: ModelSpec;
  images: CheckedImage[];
};

/** Every image-edit rule of the spec and docs/contracts.md that can be judged before the job runs. */
@Injectable()
export class ImageEditRequestService {
  constructor(private readonly catalog: CatalogService) {}

  async check(dto: ImageEditRequestDto): Promise<CheckedImageEdit> {
    const { spec } = this.catalog.resolve(dto.model, ENDPOINTS.imageEdit.capability);
    const parameters = dto.parameters ?? {};
    this.checkModelSupport(spec, parameters);
    const { images, text } = splitContent(dto, spec.limits.max_images ?? 3);
    return {
      spec,
      images: await Promise.all(images.map(({ value, index }) => checkImage(value, imageParam(index)))),
      imageIndexes: images.map(({ index }) => index),
      prompt: truncate(text, MAX_TEXT_CODE_POINTS),
      negativePrompt:
        parameters.negative_prompt === undefined
          ? undefined
          : truncate(parameters.negative_prompt, MAX_NEGATIVE_PROMPT_CODE_POINTS),
      n: parameters.n ?? 1,
      size: parameters.size === undefined ? undefined : parseSize(parameters.size),
      // The spec's default is on, for the models that can rewrite at all; the others are sent no such parameter.
      promptExtend: spec.limits.prompt_extend ? (parameters.prompt_extend ?? true) : undefined,
      seed: parameters.seed ?? randomInt(0, 2147483647),
      watermark: parameters.watermark ?? false,
    };
  }

  /** What a model cannot do is refused rather than silently ignored (docs/contracts.md). */
  private checkModelSupport(spec: ModelSpec, parameters: NonNullable<ImageEditRequestDto['parameters']>): void {
    const maxN = spec.limits.max_n ?? 1;
    if (parameters.n !== undefined && parameters.n > maxN) {
      if (maxN === 1)
        throw new GatewayError('UnsupportedParameter', `parameters.n must be 1 for ${spec.id}`, {
          param: 'parameters.n',
        });
      throw new GatewayError('InvalidParameter', `parameters.n must be between 1 and ${maxN} for ${spec.id}`, {
        param: 'parameters.n',
      });
    }
    if (parameters.size !== undefined && !spec.limits.size) {
      throw new GatewayError(
        'UnsupportedParameter',
        `parameters.size is not supported by ${spec.id}; the ${FULL_FEATURED_FAMILY} family supports it`,
        { param: 'parameters.size' },
      );
    }
    if (parameters.prompt_extend !== undefined && !spec.limits.prompt_extend) {
      throw new GatewayError(
        'UnsupportedParameter',
        `parameters.prompt_extend is not supported by ${spec.id}; the ${FULL_FEATURED_FAMILY} family supports it`,
        {
          param: 'parameters.prompt_extend',
        },
      );
    }
  }
}

/** Exactly one user message whose items each carry an image or a text: 1–max images and exactly one text. */
function splitContent(
  dto: ImageEditRequestDto,
  maxImages: number,
): { images: { value: string; index: number }[]; text: string } {
  const messages = dto.input.messages;
  if (messages.length !== 1) {
    throw new GatewayError('InvalidParameter', `input.messages must hold exactly one message, got ${messages.length}`, {
      param: 'input.messages',
    });
  }
  if (messages[0].role !== 'user') {
    throw new GatewayError('InvalidParameter', 'input.messages[0].role must be "user"', {
      param: 'input.messages[0].role',
    });
  }
  const images: { value: string; index: number }[] = [];
  const texts: string[] = [];
  messages[0].content.forEach((item: ImageEditContentDto, index) => {
    const hasImage = item.image !== undefined;
    const hasText = item.text !== undefined;
    if (hasImage === hasText) {
      throw new GatewayError(
        'InvalidParameter',
        `input.messages[0].content[${index}] must carry exactly one of image or text`,
        {
          param: `input.messages[0].content[${index}]`,
        },
      );
    }
    if (item.image !== undefined) images.push({ value: item.image, index });
    else if (item.text !== undefined) texts.push(item.text);
  });
  if (images.length === 0 || images.length > maxImages) {
    throw new GatewayError(
      'InvalidParameter',
      `input.messages[0].content must hold 1 to ${maxImages} images, got ${images.length}`,
      {
        param: 'input.messages[0].content',
      },
    );
  }
  if (texts.length !== 1) {
    throw new GatewayError(
      'InvalidParameter',
      `input.messages[0].content must hold exactly one text, got ${texts.length}`,
      {
        param: 'input.messages[0].content',
      },
    );
  }
  if (texts[0].trim() === '')
    throw new GatewayError('InvalidParameter', 'the text instruction is empty', { param: 'input.messages[0].content' });
  return { images, text: texts[0] };
}

/** URLs are fetched by the worker behind the SSRF guard; base64 is decoded and probed here so bad images fail fast. */
async function checkImage(value: string, param: string): Promise<CheckedImage> {
  try {
    if (/^[a-z][a-z0-9+.-]*:\/\//i.test(value) && !isImageUrl(value))
      throw new ImageInputError('only http and https image URLs are accepted');
    if (isImageUrl(value)) {
      if (value.length > MAX_URL_LENGTH)
        throw new ImageInputError(`the image URL is longer than ${MAX_URL_LENGTH} characters`);
      return { url: value };
    }
    const bytes = decodeBase64Image(value);
    await probeImage(bytes);
    return { bytes };
  } catch (error) {
    if (error instanceof ImageInputError)
      throw new GatewayError('InvalidImage', `${error.message} (${param})`, { param });
    throw error;
  }
}

function parseSize(size: string): { width: number; height: number } {
  const [width, height] = size.split('*').map(Number);
  const inRange = (side: number) => side >= SIZE_RANGE.min && side <= SIZE_RANGE.max;
  if (!inRange(width) || !inRange(height)) {
    throw new GatewayError(
      'InvalidParameter',
      `parameters.size sides must each be between ${SIZE_RANGE.min} and ${SIZE_RANGE.max}, got ${size}`,
      {
        param: 'parameters.size',
      },
    );
  }
  return { width, height };
}

/** Cuts to `max` Unicode code points: one per Chinese character or letter, never half a surrogate pair. */
function truncate(text: string, max: number): string {
  if (text.length <= max) return text;
  const codePoints = Array.from(text);
  return codePoints.length <= max ? text : codePoints.slice(0, max).join('');
}
