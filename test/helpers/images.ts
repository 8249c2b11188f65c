import sharp from 'sharp';

export type Rgb = [number, number, number];

export function solidPng(width: number, height: number, [r, g, b]: Rgb): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background: { r, g, b } } })
    .png()
    .toBuffer();
}

/** Left half one colour, right half another: shows where each side of an input ends up. */
export async function halvesPng(width: number, height: number, left: Rgb, right: Rgb): Promise<Buffer> {
  const half = Math.floor(width / 2);
  const rightHalf = await solidPng(width - half, height, right);
  return sharp({ create: { width, height, channels: 3, background: { r: left[0], g: left[1], b: left[2] } } })
    .composite([{ input: rightHalf, left: half, top: 0 }])
    .png()
    .toBuffer();
}

function noise(width: number, height: number, seed: number): ReturnType<typeof sharp> {
  const pixels = Buffer.alloc(width * height * 3);
  let state = seed;
  for (let i = 0; i < pixels.length; i++) {
    state = (state * 1103515245 + 12345) & 0x7fffffff;
    pixels[i] = (state >> 16) & 0xff;
  }
  return sharp(pixels, { raw: { width, height, channels: 3 } });
}

/** A colourful, textured image: exercises blur, grayscale and colour operations on real variation. */
export function noisyPng(width: number, height: number, seed = 1): Promise<Buffer> {
  return noise(width, height, seed).png().toBuffer();
}

/** Noise as a JPEG: a large photo-sized input that takes real work to decode and scale. */
export function noisyJpeg(width: number, height: number, seed = 1): Promise<Buffer> {
  return noise(width, height, seed).jpeg({ quality: 60 }).toBuffer();
}

export interface Pixels {
  width: number;
  height: number;
  at(x: number, y: number): Rgb;
}

export async function pixelsOf(image: Buffer): Promise<Pixels> {
  const { data, info } = await sharp(image).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  return {
    width: info.width,
    height: info.height,
    at: (x, y) => {
      const offset = (y * info.width + x) * info.channels;
      return [data[offset], data[offset + 1], data[offset + 2]];
    },
  };
}

export function dataUri(png: Buffer, mime = 'image/png'): string {
  return `data:${mime};base64,${png.toString('base64')}`;
}

/** An image edit request body with the images first and the instruction last. */
export function editBody(model: string, images: string[], text: string, parameters?: Record<string, unknown>) {
  return {
    model,
    input: { messages: [{ role: 'user', content: [...images.map((image) => ({ image })), { text }] }] },
    ...(parameters ? { parameters } : {}),
  };
}

export async function download(url: string) {
  const response = await fetch(url);
  const bytes = Buffer.from(await response.arrayBuffer());
  const type = response.headers.get('content-type');
  return {
    status: response.status,
    type,
    bytes,
    body: type?.includes('json') ? JSON.parse(bytes.toString()) : undefined,
  };
}

/** An uncompressed 24-bit BMP of noise: about 3 bytes a pixel, and nothing a PNG can squeeze out of it. */
export function noisyBmp(width: number, height: number, seed = 1): Buffer {
  const rowBytes = Math.ceil((width * 3) / 4) * 4;
  const file = Buffer.alloc(54 + rowBytes * height);
  file.write('BM', 0, 'latin1');
  file.writeUInt32LE(file.length, 2);
  file.writeUInt32LE(54, 10);
  file.writeUInt32LE(40, 14);
  file.writeInt32LE(width, 18);
  file.writeInt32LE(height, 22);
  file.writeUInt16LE(1, 26);
  file.writeUInt16LE(24, 28);
  file.writeUInt32LE(rowBytes * height, 34);
  let state = seed;
  for (let y = 0; y < height; y++) {
    for (let i = 0; i < width * 3; i++) {
      state = (state * 1103515245 + 12345) & 0x7fffffff;
      file[54 + y * rowBytes + i] = (state >> 16) & 0xff;
    }
  }
  return file;
}
