// The one pixel form every edit step takes and returns: 8-bit sRGB with alpha, uncompressed. Each step runs as its
// own sharp pipeline, because within one pipeline libvips applies operations in its own fixed order, not ours.
import sharp, { PngOptions, Sharp } from 'sharp';

export interface Raster {
  /** width × height × 4 bytes, RGBA. */
  data: Buffer;
  width: number;
  height: number;
}

/** Fixed encoder settings: the same pixels always give the same bytes. */
const PNG_OPTIONS: PngOptions = {
  compressionLevel: 6,
  adaptiveFiltering: false,
  palette: false,
  progressive: false,
  force: true,
};

/** Decodes an input (EXIF orientation applied, first frame only), shrinking it to fit `maxSide` if larger. */
export function decodeRaster(image: Buffer, maxSide?: number): Promise<Raster> {
  // Inputs were validated on the way in; a flaw the validator let through (a cut-off JPEG tail) should not fail the edit.
  let pipeline = sharp(image, { animated: false, failOn: 'none' }).autoOrient();
  if (maxSide) pipeline = pipeline.resize({ width: maxSide, height: maxSide, fit: 'inside', withoutEnlargement: true });
  return toRaster(pipeline);
}

export function pipelineOf(raster: Raster): Sharp {
  return sharp(raster.data, { raw: { width: raster.width, height: raster.height, channels: 4 } });
}

export async function toRaster(pipeline: Sharp): Promise<Raster> {
  const { data, info } = await pipeline
    .toColourspace('srgb')
    .ensureAlpha()
    .raw({ depth: 'uchar' })
    .toBuffer({ resolveWithObject: true });
  if (info.channels !== 4) throw new Error(`expected RGBA pixels, got ${info.channels} channels`);
  return { data, width: info.width, height: info.height };
}

/** One step: the raster through a sharp pipeline and back. */
export function transform(raster: Raster, step: (pipeline: Sharp) => Sharp): Promise<Raster> {
  return toRaster(step(pipelineOf(raster)));
}

export function solidRaster(
  width: number,
  height: number,
  [r, g, b]: readonly [number, number, number],
  alpha = 255,
): Raster {
  const data = Buffer.alloc(width * height * 4);
  for (let offset = 0; offset < data.length; offset += 4) {
    data[offset] = r;
    data[offset + 1] = g;
    data[offset + 2] = b;
    data[offset + 3] = alpha;
  }
  return { data, width, height };
}

function isOpaque(raster: Raster): boolean {
  for (let offset = 3; offset < raster.data.length; offset += 4) if (raster.data[offset] !== 255) return false;
  return true;
}

/** PNG bytes; the alpha channel is kept only when some pixel is not fully opaque. */
export function encodePng(raster: Raster): Promise<Buffer> {
  const pipeline = pipelineOf(raster);
  return (isOpaque(raster) ? pipeline.removeAlpha() : pipeline).png(PNG_OPTIONS).toBuffer();
}
