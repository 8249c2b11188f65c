import sharp, { Sharp } from 'sharp';
import { decodeImage, probeImage } from './decode-image';
import { sniffImageFormat } from './image-format';
import { ImageInputError } from './image-input-error';
import { MAX_BMP_BYTES, MAX_IMAGE_BYTES } from './image-limits';

type Rgb = [number, number, number];

const RED: Rgb = [255, 0, 0];
const GREEN: Rgb = [0, 255, 0];
const BLUE: Rgb = [0, 0, 255];
const WHITE: Rgb = [255, 255, 255];
const BLACK: Rgb = [0, 0, 0];

/** Rows top to bottom. Odd widths on purpose, so BMP row padding is exercised. */
const PICTURE: Rgb[][] = [
  [RED, GREEN, BLUE],
  [WHITE, BLACK, RED],
];

function solid(width: number, height: number, colour: string): Sharp {
  return sharp({ create: { width, height, channels: 3, background: colour } });
}

async function rgbRows(png: Buffer): Promise<Rgb[][]> {
  const { data, info } = await sharp(png).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  return Array.from({ length: info.height }, (_row, y) =>
    Array.from({ length: info.width }, (_column, x): Rgb => {
      const i = (y * info.width + x) * 3;
      return [data[i], data[i + 1], data[i + 2]];
    }),
  );
}

interface BmpSpec {
  bitsPerPixel: 1 | 4 | 8 | 24 | 32;
  /** Rows top to bottom: RGB for 24/32-bit, palette indices for 1/4/8-bit. */
  rows: (Rgb | number)[][];
  palette?: Rgb[];
  topDown?: boolean;
  /** 124 writes a BITMAPV5HEADER with zero masks, as some encoders do for BI_RGB. */
  headerSize?: 40 | 124;
  compression?: number;
  /** Unused bytes between the palette and the pixel rows, which the file header's offset skips. */
  gap?: number;
}

/** A BMP built by hand, byte by byte, so the test does not depend on an encoder's quirks. */
function buildBmp({
  bitsPerPixel,
  rows,
  palette = [],
  topDown = false,
  headerSize = 40,
  compression = 0,
  gap = 0,
}: BmpSpec): Buffer {
  const width = rows[0].length;
  const height = rows.length;
  const rowBytes = Math.ceil((width * bitsPerPixel) / 32) * 4;
  const pixelOffset = 14 + headerSize + palette.length * 4 + gap;
  const file = Buffer.alloc(pixelOffset + rowBytes * height);
  file.write('BM', 0, 'latin1');
  file.writeUInt32LE(file.length, 2);
  file.writeUInt32LE(pixelOffset, 10);
  file.writeUInt32LE(headerSize, 14);
  file.writeInt32LE(width, 18);
  file.writeInt32LE(topDown ? -height : height, 22);
  file.writeUInt16LE(1, 26);
  file.writeUInt16LE(bitsPerPixel, 28);
  file.writeUInt32LE(compression, 30);
  file.writeUInt32LE(rowBytes * height, 34);
  file.writeUInt32LE(palette.length, 46);
  palette.forEach(([r, g, b], i) => file.set([b, g, r, 0], 14 + headerSize + i * 4));
  const storedRows = topDown ? rows : [...rows].reverse();
  storedRows.forEach((row, y) => {
    const start = pixelOffset + y * rowBytes;
    row.forEach((pixel, x) => {
      if (Array.isArray(pixel)) {
        const [r, g, b] = pixel;
        file.set(bitsPerPixel === 24 ? [b, g, r] : [b, g, r, 0], start + (x * bitsPerPixel) / 8);
      } else {
        const bit = x * bitsPerPixel;
        file[start + (bit >> 3)] |= pixel << (8 - bitsPerPixel - (bit & 7));
      }
    });
  });
  return file;
}

/** The same picture as palette indices. */
const indexed = (rows: Rgb[][], palette: Rgb[]) =>
  rows.map((row) => row.map((pixel) => palette.findIndex((entry) => entry.join() === pixel.join())));

async function rejection(promise: Promise<unknown>): Promise<ImageInputError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(ImageInputError);
  return error as ImageInputError;
}

describe('decodeImage', () => {
  it.each([
    ['jpeg', (image: Sharp) => image.jpeg()],
    ['png', (image: Sharp) => image.png()],
    ['webp', (image: Sharp) => image.webp()],
    ['tiff', (image: Sharp) => image.tiff()],
  ])('accepts %s and returns the original bytes', async (format, encode) => {
    const bytes = await encode(solid(64, 48, '#3366cc')).toBuffer();
    const decoded = await decodeImage(bytes);
    expect(decoded).toMatchObject({ format, width: 64, height: 48 });
    expect(decoded.data).toBe(bytes);
  });

  it('accepts a GIF and returns its first frame as PNG, dropping the animation', async () => {
    const frames = await Promise.all(
      ['#ff0000', '#00ff00', '#0000ff'].map((colour) => solid(50, 40, colour).png().toBuffer()),
    );
    const animated = await sharp(frames, { join: { animated: true } })
      .gif({ loop: 0 })
      .toBuffer();
    expect((await sharp(animated).metadata()).pages).toBe(3);

    const decoded = await decodeImage(animated);
    expect(decoded).toMatchObject({ format: 'gif', width: 50, height: 40 });
    expect(sniffImageFormat(decoded.data)).toBe('png');
    const frame = await sharp(decoded.data).metadata();
    expect([frame.width, frame.height, frame.pages ?? 1]).toEqual([50, 40, 1]);
    expect((await rgbRows(decoded.data))[20][25]).toEqual(RED);
  });

  it('reports the dimensions as displayed when EXIF rotates the photo', async () => {
    const portrait = await solid(80, 60, '#808080').jpeg().withMetadata({ orientation: 6 }).toBuffer();
    expect(await decodeImage(portrait)).toMatchObject({ format: 'jpeg', width: 60, height: 80 });
  });

  describe('BMP (decoded with bmp-ts, returned as PNG)', () => {
    const palette = [RED, GREEN, BLUE, WHITE, BLACK];

    it.each<[string, BmpSpec]>([
      ['24-bit', { bitsPerPixel: 24, rows: PICTURE }],
      ['24-bit top-down', { bitsPerPixel: 24, rows: PICTURE, topDown: true }],
      ['32-bit', { bitsPerPixel: 32, rows: PICTURE }],
      ['32-bit with a V5 header and zero masks', { bitsPerPixel: 32, rows: PICTURE, headerSize: 124 }],
      ['8-bit palette', { bitsPerPixel: 8, rows: indexed(PICTURE, palette), palette }],
      ['4-bit palette, odd width', { bitsPerPixel: 4, rows: indexed(PICTURE, palette), palette }],
      ['24-bit with a gap before the pixels', { bitsPerPixel: 24, rows: PICTURE, gap: 10 }],
    ])('%s, keeping colours and row order', async (_name, spec) => {
      const decoded = await decodeImage(buildBmp(spec));
      expect(decoded).toMatchObject({ format: 'bmp', width: 3, height: 2 });
      expect(sniffImageFormat(decoded.data)).toBe('png');
      expect(await rgbRows(decoded.data)).toEqual(PICTURE);
    });

    it('1-bit', async () => {
      const rows = [
        [WHITE, BLACK, WHITE, BLACK, WHITE, BLACK, WHITE, BLACK, WHITE],
        [BLACK, BLACK, WHITE, WHITE, BLACK, BLACK, WHITE, WHITE, BLACK],
      ];
      const decoded = await decodeImage(
        buildBmp({ bitsPerPixel: 1, rows: indexed(rows, [BLACK, WHITE]), palette: [BLACK, WHITE] }),
      );
      expect(await rgbRows(decoded.data)).toEqual(rows);
    });

    it('refuses RLE compression, which bmp-ts decodes wrongly', async () => {
      const rle = buildBmp({ bitsPerPixel: 8, rows: indexed(PICTURE, palette), palette, compression: 1 });
      expect((await rejection(probeImage(rle))).message).toBe(
        'image is a BMP variant that is not supported (use uncompressed BMP)',
      );
      expect((await rejection(decodeImage(rle))).message).toBe(
        'image is a BMP variant that is not supported (use uncompressed BMP)',
      );
    });

    it('rejects a truncated BMP', async () => {
      const bmp = buildBmp({ bitsPerPixel: 24, rows: PICTURE });
      expect((await rejection(decodeImage(bmp.subarray(0, bmp.length - 4)))).message).toBe(
        'image could not be decoded',
      );
    });

    it('decodes in a worker thread, so the event loop keeps turning', async () => {
      // A 6000×6000 1-bit checkerboard: 36 MP that take bmp-ts about 0.4 s of synchronous work.
      const side = 6000;
      const header = buildBmp({ bitsPerPixel: 1, rows: [[0]], palette: [BLACK, WHITE] }).subarray(0, 62);
      const rowBytes = Math.ceil(side / 32) * 4;
      const pixels = Buffer.alloc(rowBytes * side);
      for (let y = 0; y < side; y++) pixels.fill(y % 2 ? 0x55 : 0xaa, y * rowBytes, (y + 1) * rowBytes);
      const bmp = Buffer.concat([header, pixels]);
      bmp.writeInt32LE(side, 18);
      bmp.writeInt32LE(side, 22);
      let longestStall = 0;
      let last = Date.now();
      const ticker = setInterval(() => {
        longestStall = Math.max(longestStall, Date.now() - last);
        last = Date.now();
      }, 5);
      try {
        expect(await decodeImage(bmp)).toMatchObject({ format: 'bmp', width: side, height: side });
      } finally {
        clearInterval(ticker);
      }
      expect(longestStall).toBeLessThan(200);
    });
  });

  it.each([
    ['a PDF', Buffer.from('%PDF-1.7\n1 0 obj << /Type /Catalog >> endobj\n')],
    ['text', Buffer.from('just some words, not pixels')],
    ['an SVG', Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"/>')],
  ])('rejects %s as an unsupported format', async (_name, bytes) => {
    expect((await rejection(decodeImage(bytes))).message).toBe(
      'image is not a supported format (JPEG, PNG, BMP, TIFF, WEBP, GIF)',
    );
  });

  it.each([
    ['jpeg', (image: Sharp) => image.jpeg()],
    ['png', (image: Sharp) => image.png()],
  ])('rejects a truncated %s as undecodable, although its header probes fine', async (_format, encode) => {
    const noise = sharp({
      create: {
        width: 400,
        height: 300,
        channels: 3,
        background: '#000',
        noise: { type: 'gaussian', mean: 128, sigma: 40 },
      },
    });
    const bytes = await encode(noise).toBuffer();
    const truncated = bytes.subarray(0, Math.floor(bytes.length / 2));
    await expect(probeImage(truncated)).resolves.toMatchObject({ width: 400, height: 300 });
    expect((await rejection(decodeImage(truncated))).message).toBe('image could not be decoded');
  });

  it('rejects more than 10 MB before looking at the content, and a BMP over 30 MB', async () => {
    const huge = Buffer.alloc(MAX_IMAGE_BYTES + 1);
    huge.set([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    const tooLarge = 'image is larger than 10 MB (only BMP may be up to 30 MB)';
    expect((await rejection(decodeImage(huge))).message).toBe(tooLarge);
    expect((await rejection(probeImage(huge))).message).toBe(tooLarge);
    const hugeBmp = Buffer.alloc(MAX_BMP_BYTES + 1);
    hugeBmp.write('BM', 0, 'latin1');
    expect((await rejection(decodeImage(hugeBmp))).message).toBe('image is larger than 30 MB');
  });

  it('takes a BMP above 10 MB, whose PNG is what travels on', async () => {
    const width = 1900;
    const rows = Array.from({ length: 1900 }, (_, y) =>
      Array.from({ length: width }, (_, x): Rgb => [x & 255, y & 255, (x ^ y) & 255]),
    );
    const bmp = buildBmp({ bitsPerPixel: 24, rows });
    expect(bmp.length).toBeGreaterThan(MAX_IMAGE_BYTES);
    const decoded = await decodeImage(bmp);
    expect(decoded).toMatchObject({ format: 'bmp', width, height: 1900, sourceBytes: bmp.length });
    expect((await sharp(decoded.data).metadata()).format).toBe('png');
  });

  describe('decompression bombs', () => {
    let bomb: Buffer;

    beforeAll(async () => {
      // 8000×6000 of one grey compresses to a few hundred KB yet would decode to 48 MP.
      bomb = await sharp({
        create: { width: 8000, height: 6000, channels: 3, background: '#777' },
        limitInputPixels: false,
      })
        .toColourspace('b-w')
        .png({ compressionLevel: 9 })
        .toBuffer();
    });

    it('rejects a small PNG that declares too many pixels, from its header', async () => {
      expect(bomb.length).toBeLessThan(MAX_IMAGE_BYTES / 10);
      expect((await rejection(probeImage(bomb))).message).toBe('image has more than 40 megapixels (8000×6000)');
      expect((await rejection(decodeImage(bomb))).message).toBe('image has more than 40 megapixels (8000×6000)');
    });

    it('rejects a BMP header that declares too many pixels, before reading pixel data', async () => {
      const header = buildBmp({ bitsPerPixel: 24, rows: [[RED]] });
      header.writeInt32LE(20000, 18);
      header.writeInt32LE(20000, 22);
      expect((await rejection(decodeImage(header))).message).toBe('image has more than 40 megapixels (20000×20000)');
    });
  });
});

describe('probeImage', () => {
  it('returns format and dimensions', async () => {
    const png = await solid(30, 20, '#fff').png().toBuffer();
    await expect(probeImage(png)).resolves.toEqual({ format: 'png', width: 30, height: 20 });
    await expect(probeImage(buildBmp({ bitsPerPixel: 24, rows: PICTURE }))).resolves.toEqual({
      format: 'bmp',
      width: 3,
      height: 2,
    });
  });
});
