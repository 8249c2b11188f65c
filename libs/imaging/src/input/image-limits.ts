/** Largest accepted image, measured after base64 decoding (docs/contracts.md: ≤ 10 MB decoded). */
export const MAX_IMAGE_BYTES = 10 * 1024 * 1024;
export const MAX_IMAGE_BYTES_LABEL = '10 MB';

/**
 * Decompression-bomb cap, checked from the header before any pixel is decoded: a few hundred KB of PNG can
 * declare 20000×20000 pixels (1.2 GB as RGB). The spec recommends sides up to 3072 (9.4 MP); 40 MP is four times
 * that, more than any photo that fits in 10 MB needs, and bounds one decode at about 160 MB of RGBA.
 */
export const MAX_IMAGE_PIXELS = 40_000_000;

export const MAX_IMAGE_MEGAPIXELS_LABEL = `${MAX_IMAGE_PIXELS / 1_000_000} megapixels`;
