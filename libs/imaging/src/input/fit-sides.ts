import sharp from 'sharp';
import { EncodedImage } from './fit-within-bytes';

/** Inclusive bounds for both sides of an image, in pixels. */
export interface SideRange {
  min: number;
  max: number;
}

/**
 * Width and height scaled by one factor, keeping the aspect ratio, so both sides fall within `range`: a smaller
 * image is scaled up until its short side reaches `min`, a larger one down until its long side is `max`.
 * A ratio wider than max:min (8:1 for 384–3072) cannot keep its aspect within the range: then the long side is
 * brought to `max` and the short side stretched to `min`, a distortion instead of an input the upstream refuses.
 */
export function sidesWithin(width: number, height: number, range: SideRange): { width: number; height: number } {
  const up = range.min / Math.min(width, height);
  const down = range.max / Math.max(width, height);
  const scale = Math.max(up, Math.min(1, down));
  const side = (value: number) => Math.min(range.max, Math.max(range.min, Math.round(value * scale)));
  return { width: side(width), height: side(height) };
}

/**
 * The image as it is when both its sides are within `range`; otherwise resized to sidesWithin and re-encoded in
 * its own format (JPEG and WebP at quality 90, anything else as PNG), EXIF orientation applied.
 */
export async function fitSides(image: EncodedImage, range: SideRange): Promise<EncodedImage> {
  const { width, height } = sidesWithin(image.width, image.height, range);
  if (width === image.width && height === image.height) return image;
  // rotate() applies EXIF orientation first, so width and height are the displayed ones, as in `image`.
  const resized = sharp(image.data).rotate().resize(width, height, { fit: 'fill' });
  if (image.mime === 'image/jpeg') {
    return { data: await resized.jpeg({ quality: 90, mozjpeg: true }).toBuffer(), mime: image.mime, width, height };
  }
  if (image.mime === 'image/webp') {
    return { data: await resized.webp({ quality: 90 }).toBuffer(), mime: image.mime, width, height };
  }
  return { data: await resized.png().toBuffer(), mime: 'image/png', width, height };
}
