import sharp, { Metadata, SharpOptions } from 'sharp';
import { bmpToPng } from './bmp-decoder';
import { bmpLayout, BmpLayout, readBmpHeader } from './bmp-header';
import { ImageFormat, sniffImageFormat, SUPPORTED_FORMATS_LABEL } from './image-format';
import { ImageInputError } from './image-input-error';
import {
  MAX_BMP_BYTES_LABEL,
  MAX_IMAGE_BYTES,
  MAX_IMAGE_BYTES_LABEL,
  MAX_IMAGE_MEGAPIXELS_LABEL,
  MAX_IMAGE_PIXELS,
  MAX_INPUT_BYTES,
} from './image-limits';

export interface ImageProbe {
  format: ImageFormat;
  /** As displayed: EXIF orientation applied, so a portrait phone photo is taller than wide. */
  width: number;
  height: number;
}

export interface DecodedImage extends ImageProbe {
  /** Bytes sharp reads losslessly: the original for JPEG/PNG/WEBP/TIFF, a PNG for BMP, a PNG of the first frame for GIF. */
  data: Buffer;
  /** Size of the image as it was received, before any conversion. */
  sourceBytes: number;
}

/**
 * 'error' still fails on truncated data but tolerates libjpeg's benign warnings (such as extraneous bytes before a
 * marker) that the stricter default rejects in many real photos. `pages: 1`: only the first frame of a GIF, WEBP
 * or TIFF is used.
 */
const DECODE_OPTIONS: SharpOptions = { failOn: 'error', limitInputPixels: MAX_IMAGE_PIXELS, pages: 1 };

interface Inspection extends ImageProbe {
  bmpLayout?: BmpLayout;
}

/**
 * Cheap check for the api: format, size and header dimensions against the pixel cap; no pixel is decoded, so a
 * truncated JPEG passes here and fails decodeImage (a BMP's layout is checked too, being just arithmetic).
 */
export async function probeImage(bytes: Buffer): Promise<ImageProbe> {
  const { format, width, height } = await inspect(bytes);
  return { format, width, height };
}

/**
 * Proves the image decodes in full and returns bytes the engine can read. Everything heavy runs off the event loop
 * (sharp in libuv threads, bmp-ts in a worker thread). Throws ImageInputError.
 */
export async function decodeImage(bytes: Buffer): Promise<DecodedImage> {
  const { bmpLayout: layout, ...probe } = await inspect(bytes);
  try {
    return { ...probe, data: await decodedData(bytes, probe.format, layout), sourceBytes: bytes.length };
  } catch (cause) {
    if (cause instanceof ImageInputError) throw cause;
    throw new ImageInputError('image could not be decoded', { cause });
  }
}

async function decodedData(bytes: Buffer, format: ImageFormat, layout: BmpLayout | undefined): Promise<Buffer> {
  switch (format) {
    case 'bmp':
      if (!layout) throw new Error('a BMP reached decoding without its layout');
      return bmpToPng(bytes, layout);
    case 'gif':
      return sharp(bytes, DECODE_OPTIONS).png().toBuffer();
    default:
      // stats() pulls every pixel through the decoder without keeping the image in memory.
      await sharp(bytes, DECODE_OPTIONS).stats();
      return bytes;
  }
}

async function inspect(bytes: Buffer): Promise<Inspection> {
  if (bytes.length > MAX_INPUT_BYTES) throw new ImageInputError(`image is larger than ${MAX_BMP_BYTES_LABEL}`);
  const format = sniffImageFormat(bytes);
  if (!format) throw new ImageInputError(`image is not a supported format (${SUPPORTED_FORMATS_LABEL})`);
  // Past MAX_INPUT_BYTES (the BMP limit) nothing got here; other formats stop at 10 MB.
  if (format !== 'bmp' && bytes.length > MAX_IMAGE_BYTES) {
    throw new ImageInputError(
      `image is larger than ${MAX_IMAGE_BYTES_LABEL} (only BMP may be up to ${MAX_BMP_BYTES_LABEL})`,
    );
  }

  if (format === 'bmp') {
    const header = readBmpHeader(bytes);
    assertWithinPixelCap(header.width, header.height);
    return { format, width: header.width, height: header.height, bmpLayout: bmpLayout(header, bytes.length) };
  }

  let metadata: Metadata;
  try {
    // Header only; the cap is checked below so the client gets dimensions rather than libvips's wording.
    metadata = await sharp(bytes, { ...DECODE_OPTIONS, limitInputPixels: false }).metadata();
  } catch (cause) {
    throw new ImageInputError('image could not be decoded', { cause });
  }
  // libvips detects the format on its own; a disagreement with the magic bytes means a malformed or polyglot file.
  if (metadata.format !== format) throw new ImageInputError('image could not be decoded');
  assertWithinPixelCap(metadata.width, metadata.height);
  const { width, height } = metadata.autoOrient ?? metadata;
  return { format, width, height };
}

function assertWithinPixelCap(width: number, height: number): void {
  if (width * height > MAX_IMAGE_PIXELS) {
    throw new ImageInputError(`image has more than ${MAX_IMAGE_MEGAPIXELS_LABEL} (${width}×${height})`);
  }
}
