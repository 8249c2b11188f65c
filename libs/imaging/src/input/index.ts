export { type ImageFormat, sniffImageFormat } from './image-format';
export { MAX_IMAGE_BYTES, MAX_IMAGE_PIXELS } from './image-limits';
export { ImageInputError } from './image-input-error';
export { decodeBase64Image, isImageUrl } from './base64-image';
export { type DecodedImage, type ImageProbe, decodeImage, probeImage } from './decode-image';
