// Images built in memory for the engine's specs, and a reader for the pixels the engine returns.
import sharp from 'sharp';

export type Rgb = [number, number, number];

export const RED: Rgb = [255, 0, 0];
export const GREEN: Rgb = [0, 255, 0];
export const BLUE: Rgb = [0, 0, 255];
export const YELLOW: Rgb = [255, 255, 0];

export function solidPng(width: number, height: number, [r, g, b]: Rgb): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background: { r, g, b } } }).png().toBuffer();
}

/** Each pixel from `colour(x, y)`: gradients, edges, quadrants. */
export function paintedPng(width: number, height: number, colour: (x: number, y: number) => Rgb): Promise<Buffer> {
  const data = Buffer.alloc(width * height * 3);
  for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) data.set(colour(x, y), (y * width + x) * 3);
  return sharp(data, { raw: { width, height, channels: 3 } }).png().toBuffer();
}

/** Left half `left`, right half `right`. */
export function halvesPng(width: number, height: number, left: Rgb, right: Rgb): Promise<Buffer> {
  return paintedPng(width, height, (x) => (x < width / 2 ? left : right));
}

/** Top-left, top-right, bottom-left, bottom-right. */
export function quadrantsPng(width: number, height: number, [topLeft, topRight, bottomLeft, bottomRight]: Rgb[]): Promise<Buffer> {
  return paintedPng(width, height, (x, y) => (y < height / 2 ? (x < width / 2 ? topLeft : topRight) : x < width / 2 ? bottomLeft : bottomRight));
}

/** Colourful and textured, from a fixed linear congruential sequence. */
export function noisyPng(width: number, height: number, seed = 1): Promise<Buffer> {
  let state = seed;
  return paintedPng(width, height, () => {
    const next = () => ((state = (state * 1103515245 + 12345) & 0x7fffffff) >> 16) & 0xff;
    return [next(), next(), next()];
  });
}

export interface Pixels {
  width: number;
  height: number;
  channels: number;
  at(x: number, y: number): Rgb;
  /** Every pixel of the rectangle (all of the image by default). */
  all(region?: { left: number; top: number; width: number; height: number }): Rgb[];
}

export async function pixelsOf(png: Buffer): Promise<Pixels> {
  const { data, info } = await sharp(png).raw().toBuffer({ resolveWithObject: true });
  const at = (x: number, y: number): Rgb => {
    const offset = (y * info.width + x) * info.channels;
    return [data[offset], data[offset + 1], data[offset + 2]];
  };
  return {
    width: info.width,
    height: info.height,
    channels: info.channels,
    at,
    all: ({ left, top, width, height } = { left: 0, top: 0, width: info.width, height: info.height }) =>
      Array.from({ length: width * height }, (_, index) => at(left + (index % width), top + Math.floor(index / width))),
  };
}

export function mean(values: number[]): number {
  return values.reduce((sum, value) => sum + value, 0) / values.length;
}

export function standardDeviation(values: number[]): number {
  const average = mean(values);
  return Math.sqrt(mean(values.map((value) => (value - average) ** 2)));
}

export function luma([r, g, b]: Rgb): number {
  return 0.299 * r + 0.587 * g + 0.114 * b;
}

/** Within `tolerance` of `expected` on every channel: the seeded tone curve may move mid-tones by a level or two. */
export function near(actual: Rgb, expected: Rgb, tolerance = 3): boolean {
  return actual.every((value, channel) => Math.abs(value - expected[channel]) <= tolerance);
}
