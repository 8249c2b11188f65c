// What DashScope's image-edit models accept, from "Alibaba Cloud Model Studio: Qwen - image editing API reference"
// (https://www.alibabacloud.com/help/en/model-studio/qwen-image-edit-api). The adapter sends a model only the
// parameters it takes, inside the documented ranges, and its inputs in a form the service can take.
import type { FetchReach } from '@gateway/outbound';
import { ProviderError } from '../provider.types';
import { signedUrlExpiry } from './signed-url-expiry';

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

/** "Image size: no more than 10 MB", per input image: what a URL the service fetches may answer. */
export const MAX_UPSTREAM_IMAGE_BYTES = 10 * 1024 * 1024;

/**
 * What an inline image aims at, decoded: 7.5 MB is 10 MB as base64 (4/3 the size), less 1 KB for the data URI's
 * `data:image/…;base64,` prefix, so the URI stays under the per-image limit whether the service counts the decoded
 * bytes or the string it was sent.
 */
export const MAX_INLINE_IMAGE_BYTES = 7.5 * 1024 * 1024 - 1024;

/** Input width and height: each "must be within [384, 3072] pixels". */
export const INPUT_SIDES = { min: 384, max: 3072 };

/** `size` sides: 512–2048 pixels; outputs come in multiples of 16, so the size sent is one. */
const SIZE = { min: 512, max: 2048, step: 16 };

/** The `width*height` to send for a requested size: each side at the nearest multiple of 16 within 512–2048. */
export function upstreamSize(size: { width: number; height: number }): string {
  const side = (value: number) => Math.min(SIZE.max, Math.max(SIZE.min, Math.round(value / SIZE.step) * SIZE.step));
  return `${side(size.width)}*${side(size.height)}`;
}

/** An input as the adapter holds it: its picture, and the caller's URL with how the worker fetched it, if any. */
export interface UrlCandidate {
  url?: string;
  reach?: FetchReach;
  sourceBytes: number;
  width: number;
  height: number;
}

/**
 * Why an input the caller gave as a URL must go to DashScope as bytes instead, or undefined when the URL may go: the
 * service fetches it from the public internet, so only what it would find as the worker did may be passed on.
 * - the worker fetched it directly: no redirect (the service follows none), the answer with a Content-Length
 *   (the service refuses one without: "Missing Content-Length of multimodal url"), from a public address that no
 *   allow-list (OUTBOUND_ALLOW_CIDRS) or development flag opened;
 * - printable ASCII only ("The URL must not contain Chinese characters"): an IDN host goes in punycode;
 * - the file within the per-image limit and both sides within INPUT_SIDES (otherwise the worker scales it);
 * - a signed URL's visible expiry (signedUrlExpiry) no earlier than `neededUntil`, epoch ms.
 */
export function inlineReason(input: UrlCandidate, neededUntil: number): string | undefined {
  const { url, reach } = input;
  if (!url || !reach) return 'not given as a URL the worker fetched';
  if (!reach.direct) return 'fetched through a redirect';
  if (!reach.publicHost) return 'not on a public address, or reached through the allow-list';
  if (!reach.declaredLength) return 'answered without a Content-Length';
  if (!/^[\x21-\x7e]+$/.test(url)) return 'not in ASCII form';
  if (input.sourceBytes > MAX_UPSTREAM_IMAGE_BYTES) return 'larger than the per-image limit';
  const sides = [input.width, input.height];
  if (sides.some((side) => side < INPUT_SIDES.min || side > INPUT_SIDES.max)) return 'sides outside 384–3072';
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'not a valid URL';
  }
  const expiry = signedUrlExpiry(parsed);
  if (expiry !== undefined && expiry < neededUntil) return 'its signature expires before the call can end';
  return undefined;
}

/**
 * DashScope could not fetch an input URL (BadRequest.InputDownloadFailed, InvalidURL and its kin, or the missing
 * Content-Length): it generated nothing and bills nothing (https://www.alibabacloud.com/help/en/model-studio/error-code),
 * so the same request with every image inline can go at once.
 */
export function couldNotFetchInput(error: unknown): boolean {
  if (!(error instanceof ProviderError) || error.code === undefined) return false;
  if (/^(BadRequest\.InputDownloadFailed|InvalidURL(\.\w+)?)$/.test(error.code)) return true;
  return /^InternalError\.Algo/.test(error.code) && /Missing Content-Length of multimodal url/i.test(error.message);
}
