export { type ImageFormat } from './image-format';
export { MAX_IMAGE_BYTES } from './image-limits';
export { ImageInputError } from './image-input-error';
export { decodeBase64Image, isImageUrl } from './base64-image';
export { type DecodedImage, type ImageProbe, decodeImage, probeImage } from './decode-image';
