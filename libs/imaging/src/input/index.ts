export { type ImageFormat, sniffImageFormat } from './image-format';
export { MAX_IMAGE_BYTES, MAX_INPUT_BYTES } from './image-limits';
export { fitWithinBytes, type EncodedImage } from './fit-within-bytes';
export { fitSides, sidesWithin, type SideRange } from './fit-sides';
export { ImageInputError } from './image-input-error';
export { decodeBase64Image, isImageUrl } from './base64-image';
export { type DecodedImage, type ImageProbe, decodeImage, probeImage } from './decode-image';
