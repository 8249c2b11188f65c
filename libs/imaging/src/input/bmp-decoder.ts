import sharp from 'sharp';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { BmpCompression, BmpLayout } from './bmp-header';
import { ImageInputError } from './image-input-error';

/**
 * Where bmp-ts runs: a worker thread, because it is synchronous JavaScript and the event loop must stay free. Beside
 * this file both in the sources and in each app's build (an asset in nest-cli.json).
 */
const WORKER_FILE = path.join(__dirname, 'bmp-decode.worker.mjs');

interface RawPixels {
  width: number;
  height: number;
  channels: 3 | 4;
  pixels: Uint8Array;
}

/** A BMP as PNG: sharp's prebuilt libvips has no BMP loader. */
export async function bmpToPng(bytes: Buffer, layout: BmpLayout): Promise<Buffer> {
  const raw = await decodeInWorker(bmpTsInput(bytes, layout));
  // The raw dimensions come from a header already checked against the pixel cap.
  let image = sharp(Buffer.from(raw.pixels.buffer, raw.pixels.byteOffset, raw.pixels.byteLength), {
    raw: { width: raw.width, height: raw.height, channels: raw.channels },
    limitInputPixels: false,
  });
  if (raw.width !== layout.width)
    image = image.extract({ left: 0, top: 0, width: layout.width, height: layout.height });
  return image.png().toBuffer();
}

/**
 * A copy of the file that bmp-ts decodes correctly: pixel rows moved right after the palette (bmp-ts ignores the
 * pixel offset), default masks for V4/V5 BI_RGB files (bmp-ts would read their zero masks and output black), and
 * odd-width 4-bit files declared one column wider (bmp-ts stops after the first row otherwise; the row layout is the
 * same, and the extra column is cropped afterwards).
 */
function bmpTsInput(bytes: Buffer, layout: BmpLayout): Buffer {
  const { bmpTsPixelOffset, pixelOffset, pixelEnd } = layout;
  const copy = Buffer.concat([bytes.subarray(0, bmpTsPixelOffset), bytes.subarray(pixelOffset, pixelEnd)]);
  copy.writeUInt32LE(bmpTsPixelOffset, 10);
  if (layout.compression === BmpCompression.None && layout.headerSize > 40) writeDefaultMasks(copy, layout);
  if (layout.bitsPerPixel === 4 && layout.width % 2 === 1) copy.writeInt32LE(layout.width + 1, 18);
  return copy;
}

/** The masks BI_RGB implies: 8-8-8 for 32-bit, 5-5-5 for 16-bit; no alpha. */
const DEFAULT_MASKS: Record<number, number[]> = {
  32: [0x00ff0000, 0x0000ff00, 0x000000ff],
  16: [0x7c00, 0x03e0, 0x001f],
};

function writeDefaultMasks(copy: Buffer, layout: BmpLayout): void {
  const masks = DEFAULT_MASKS[layout.bitsPerPixel];
  if (!masks) return;
  masks.forEach((mask, i) => copy.writeUInt32LE(mask, 54 + i * 4));
  if (layout.headerSize >= 56) copy.writeUInt32LE(0, 66);
}

function decodeInWorker(bytes: Buffer): Promise<RawPixels> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(WORKER_FILE, { workerData: bytes });
    let settled = false;
    const settle = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      void worker.terminate();
      outcome();
    };
    worker.once('message', (raw: RawPixels) => settle(() => resolve(raw)));
    worker.once('error', (cause) => settle(() => reject(new ImageInputError('image could not be decoded', { cause }))));
    worker.once('exit', () => settle(() => reject(new ImageInputError('image could not be decoded'))));
  });
}
