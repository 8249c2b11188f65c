/** The input formats docs/contracts.md accepts, told apart by their leading bytes. */
export type ImageFormat = 'jpeg' | 'png' | 'bmp' | 'tiff' | 'webp' | 'gif';

export const SUPPORTED_FORMATS_LABEL = 'JPEG, PNG, BMP, TIFF, WEBP, GIF';

/** DIB header sizes a real BMP carries at offset 14; "BM" alone is too weak a signature (plain text can start with it). */
const BMP_DIB_HEADER_SIZES = new Set([12, 40, 52, 56, 64, 108, 124]);

/** By magic bytes only: a data-URI mime type or a Content-Type is whatever the sender claims. null for anything else. */
export function sniffImageFormat(bytes: Uint8Array): ImageFormat | null {
  if (startsWith(bytes, [0xff, 0xd8, 0xff])) return 'jpeg';
  if (startsWith(bytes, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'png';
  if (startsWithText(bytes, 'GIF87a') || startsWithText(bytes, 'GIF89a')) return 'gif';
  if (startsWithText(bytes, 'RIFF') && startsWithText(bytes.subarray(8), 'WEBP')) return 'webp';
  // Classic TIFF (42) and BigTIFF (43), little- and big-endian.
  if (startsWith(bytes, [0x49, 0x49, 0x2a, 0x00]) || startsWith(bytes, [0x4d, 0x4d, 0x00, 0x2a])) return 'tiff';
  if (startsWith(bytes, [0x49, 0x49, 0x2b, 0x00]) || startsWith(bytes, [0x4d, 0x4d, 0x00, 0x2b])) return 'tiff';
  if (startsWithText(bytes, 'BM') && bytes.length >= 18 && BMP_DIB_HEADER_SIZES.has(readUInt32LE(bytes, 14)))
    return 'bmp';
  return null;
}

function startsWith(bytes: Uint8Array, signature: number[]): boolean {
  return bytes.length >= signature.length && signature.every((byte, i) => bytes[i] === byte);
}

function startsWithText(bytes: Uint8Array, signature: string): boolean {
  return startsWith(
    bytes,
    [...signature].map((char) => char.charCodeAt(0)),
  );
}

function readUInt32LE(bytes: Uint8Array, offset: number): number {
  return (bytes[offset] | (bytes[offset + 1] << 8) | (bytes[offset + 2] << 16)) + bytes[offset + 3] * 0x1000000;
}
