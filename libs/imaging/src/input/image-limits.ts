/** Largest accepted image, measured after base64 decoding (docs/contracts.md: ≤ 10 MB decoded). */
export const MAX_IMAGE_BYTES = 10 * 1024 * 1024;
export const MAX_IMAGE_BYTES_LABEL = '10 MB';

/**
 * A BMP is uncompressed: a 2000×2000 photo is 12 MB as BMP and a fraction of that as PNG or JPEG, which is how it
 * travels on. So BMPs may be larger, up to what a 3072×3072 picture (the largest side the spec recommends) takes.
 */
export const MAX_BMP_BYTES = 30 * 1024 * 1024;
export const MAX_BMP_BYTES_LABEL = '30 MB';

/** The most any input may be before its format is known: a fetch or a base64 string is cut off beyond it. */
export const MAX_INPUT_BYTES = Math.max(MAX_IMAGE_BYTES, MAX_BMP_BYTES);

/**
 * Decompression-bomb cap, checked from the header before any pixel is decoded: a few hundred KB of PNG can
 * declare 20000×20000 pixels (1.2 GB as RGB). The spec recommends sides up to 3072 (9.4 MP); 40 MP is four times
 * that, more than any photo that fits in 10 MB needs, and bounds one decode at about 160 MB of RGBA.
 */
export const MAX_IMAGE_PIXELS = 40_000_000;

export const MAX_IMAGE_MEGAPIXELS_LABEL = `${MAX_IMAGE_PIXELS / 1_000_000} megapixels`;
