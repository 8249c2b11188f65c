import sharp from 'sharp';
import { ImageInputError } from './image-input-error';

export interface EncodedImage {
  data: Buffer;
  /** e.g. image/png. */
  mime: string;
  width: number;
  height: number;
}

/** Shrinking steps tried before giving up; each aims under the limit from the size the last one reached. */
const MAX_SHRINKS = 4;
/** Aim a little under the limit, since encoded size does not scale exactly with pixel count. */
const HEADROOM = 0.9;

/**
 * The image as it is when it already fits `maxBytes`; otherwise re-encoded (JPEG at quality 90, or WebP when it has
 * transparency, which JPEG would lose) and, if that is not enough, scaled down keeping its aspect, until it fits.
 * A BMP or noisy photo converted to PNG can outgrow an upstream's per-image limit; this keeps it under without
 * refusing the caller. Throws ImageInputError if even the smallest try does not fit.
 */
export async function fitWithinBytes(image: EncodedImage, maxBytes: number): Promise<EncodedImage> {
  if (image.data.length <= maxBytes) return image;
  const { hasAlpha } = await sharp(image.data).metadata();
  const mime = hasAlpha ? 'image/webp' : 'image/jpeg';
  let scale = 1;
  for (let step = 0; step <= MAX_SHRINKS; step++) {
    const width = Math.max(1, Math.round(image.width * scale));
    const height = Math.max(1, Math.round(image.height * scale));
    // rotate() applies EXIF orientation first, so width and height are the displayed ones, as in `image`.
    const resized = sharp(image.data).rotate().resize(width, height);
    const encoded = hasAlpha ? resized.webp({ quality: 90 }) : resized.jpeg({ quality: 90, mozjpeg: true });
    const data = await encoded.toBuffer();
    if (data.length <= maxBytes) return { data, mime, width, height };
    // Encoded size grows about with the pixel count, so each side shrinks by the square root of the excess.
    scale *= Math.sqrt((maxBytes * HEADROOM) / data.length);
  }
  throw new ImageInputError(`image could not be brought under ${Math.round(maxBytes / 1024 / 1024)} MB`);
}
