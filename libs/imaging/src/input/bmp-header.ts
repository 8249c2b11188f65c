import { ImageInputError } from './image-input-error';

const FILE_HEADER_SIZE = 14;
const CORE_HEADER_SIZE = 12;
/** Info-header sizes bmp-ts can parse: BITMAPINFOHEADER and its V2–V5 successors. */
const DECODABLE_HEADER_SIZES = new Set([40, 52, 56, 108, 124]);
const DECODABLE_BITS_PER_PIXEL = new Set([1, 4, 8, 16, 24, 32]);

/** biCompression values; a plain map, not an enum, since a file's header may hold any number. */
export const BmpCompression = {
  None: 0,
  Rle8: 1,
  Rle4: 2,
  BitFields: 3,
  AlphaBitFields: 6,
} as const;

/** What the gateway needs from a BMP's headers: dimensions for the pixel cap, layout to hand bmp-ts a clean file. */
export interface BmpHeader {
  width: number;
  /** Always positive; top-down files store a negative height. */
  height: number;
  headerSize: number;
  bitsPerPixel: number;
  compression: number;
  colorsUsed: number;
  /** Where the file header says the pixel rows start. */
  pixelOffset: number;
}

/** Reads the headers only (no pixels). Throws ImageInputError for a file too short to carry them. */
export function readBmpHeader(bytes: Buffer): BmpHeader {
  const headerSize = bytes.length >= FILE_HEADER_SIZE + 4 ? bytes.readUInt32LE(FILE_HEADER_SIZE) : 0;
  const core = headerSize === CORE_HEADER_SIZE;
  if (bytes.length < FILE_HEADER_SIZE + (core ? CORE_HEADER_SIZE : 40))
    throw new ImageInputError('image could not be decoded');
  const width = core ? bytes.readUInt16LE(18) : bytes.readInt32LE(18);
  const signedHeight = core ? bytes.readUInt16LE(20) : bytes.readInt32LE(22);
  if (width <= 0 || signedHeight === 0) throw new ImageInputError('image could not be decoded');
  return {
    width,
    height: Math.abs(signedHeight),
    headerSize,
    bitsPerPixel: core ? bytes.readUInt16LE(24) : bytes.readUInt16LE(28),
    compression: core ? BmpCompression.None : bytes.readUInt32LE(30),
    colorsUsed: core ? 0 : bytes.readUInt32LE(46),
    pixelOffset: bytes.readUInt32LE(10),
  };
}

/** Where a BMP's pixel rows are, and where bmp-ts will look for them. */
export interface BmpLayout extends BmpHeader {
  /** bmp-ts reads headers, masks and palette in sequence and never seeks to the file header's pixel offset. */
  bmpTsPixelOffset: number;
  /** End of the last pixel row (each row is padded to a multiple of four bytes). */
  pixelEnd: number;
}

/**
 * The layout of a BMP that bmp-ts can decode, from the headers alone. Throws ImageInputError for variants bmp-ts
 * cannot decode (OS/2 headers, RLE, embedded JPEG/PNG) and for files shorter than their pixel rows.
 */
export function bmpLayout(header: BmpHeader, fileLength: number): BmpLayout {
  const bmpTsPixelOffset = bmpTsPixelOffsetOf(header);
  if (bmpTsPixelOffset === null)
    throw new ImageInputError('image is a BMP variant that is not supported (use uncompressed BMP)');
  const pixelEnd = header.pixelOffset + Math.ceil((header.width * header.bitsPerPixel) / 32) * 4 * header.height;
  if (header.pixelOffset < bmpTsPixelOffset || fileLength < pixelEnd)
    throw new ImageInputError('image could not be decoded');
  return { ...header, bmpTsPixelOffset, pixelEnd };
}

function bmpTsPixelOffsetOf(header: BmpHeader): number | null {
  const { headerSize, bitsPerPixel, compression, colorsUsed } = header;
  if (!DECODABLE_HEADER_SIZES.has(headerSize) || !DECODABLE_BITS_PER_PIXEL.has(bitsPerPixel)) return null;
  const bitFields = compression === BmpCompression.BitFields || compression === BmpCompression.AlphaBitFields;
  // bmp-ts's RLE decoders write pixels at wrong offsets, so RLE files are refused rather than decoded wrongly.
  if (compression !== BmpCompression.None && !(bitFields && (bitsPerPixel === 16 || bitsPerPixel === 32))) return null;
  const paletteEntries = bitsPerPixel <= 8 || colorsUsed > 0 ? colorsUsed || 2 ** bitsPerPixel : 0;
  if (paletteEntries > (bitsPerPixel <= 8 ? 2 ** bitsPerPixel : 256)) return null;
  // A BITMAPINFOHEADER keeps its masks after the header; V2 and later hold them inside it.
  const maskBytes =
    headerSize > 40
      ? 0
      : compression === BmpCompression.BitFields
        ? 12
        : compression === BmpCompression.AlphaBitFields
          ? 16
          : 0;
  return FILE_HEADER_SIZE + headerSize + maskBytes + paletteEntries * 4;
}
