// What DashScope's image-edit models accept, from "Alibaba Cloud Model Studio: Qwen - image editing API reference".
// The adapter sends a model only the parameters it takes, inside the documented ranges.

export interface ImageModelRules {
  /** `parameters.size` ("Supports custom resolutions"); qwen-image-edit does not. */
  size: boolean;
  /** `parameters.prompt_extend` ("Supports intelligent prompt rewriting"); qwen-image-edit does not. */
  promptExtend: boolean;
}

/** The base model: one image per request, its own resolution, no prompt rewriting. */
const BASE_MODEL: ImageModelRules = { size: false, promptExtend: false };
/** The plus and max families and their snapshots: 1–6 images, custom resolution, prompt rewriting. */
const FULL_MODEL: ImageModelRules = { size: true, promptExtend: true };

export function imageModelRules(model: string): ImageModelRules {
  return model === 'qwen-image-edit' ? BASE_MODEL : FULL_MODEL;
}

/** "Image size: no more than 10 MB", per input image. */
export const MAX_UPSTREAM_IMAGE_BYTES = 10 * 1024 * 1024;

/** `size` sides: 512–2048 pixels; outputs come in multiples of 16, so the size sent is one. */
const SIZE = { min: 512, max: 2048, step: 16 };

/** The `width*height` to send for a requested size: each side at the nearest multiple of 16 within 512–2048. */
export function upstreamSize(size: { width: number; height: number }): string {
  const side = (value: number) => Math.min(SIZE.max, Math.max(SIZE.min, Math.round(value / SIZE.step) * SIZE.step));
  return `${side(size.width)}*${side(size.height)}`;
}

/**
 * Whether an input the caller gave as a URL can go to DashScope as that URL (it fetches http and https URLs
 * itself): only when the file it will find there is within the per-image limit.
 */
export function acceptsImageUrl(input: { sourceBytes: number }): boolean {
  return input.sourceBytes <= MAX_UPSTREAM_IMAGE_BYTES;
}
