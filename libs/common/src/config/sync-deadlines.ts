import type { AppConfig } from './app-config';

/** Tries of one generated image's download: the image is billed once made, so a failed download is tried again. */
export const IMAGE_DOWNLOAD_TRIES = 3;
export const IMAGE_DOWNLOAD_PAUSE_MS = 500;

/**
 * What a synchronous image edit holds beyond its longest upstream call: the route's paced start (max_concurrency /
 * max_rps, seconds) and the local engine answering after a generation that timed out.
 */
const IMAGE_EDIT_SYNC_MARGIN_MS = 30_000;

/** The longest one image generation call can take: the generation, then every download try and the pauses between. */
export function longestImageCallMs(config: AppConfig): number {
  const downloads =
    IMAGE_DOWNLOAD_TRIES * config.UPSTREAM_IMAGE_DOWNLOAD_TIMEOUT_MS +
    (IMAGE_DOWNLOAD_TRIES - 1) * IMAGE_DOWNLOAD_PAUSE_MS;
  return config.UPSTREAM_IMAGE_GENERATION_TIMEOUT_MS + downloads;
}

/**
 * How long a synchronous call on `queue` is held before 504 Timeout. An image edit outlasts its longest upstream
 * call (391 s by default, against SYNC_TIMEOUT_MS's 300 s): a caller answered 504 while the generation runs would
 * retry it, and the upstream would make and bill the image twice.
 */
export function syncDeadlineMs(config: AppConfig, queue: string): number {
  if (queue !== 'image-edit') return config.SYNC_TIMEOUT_MS;
  return Math.max(config.SYNC_TIMEOUT_MS, longestImageCallMs(config) + IMAGE_EDIT_SYNC_MARGIN_MS);
}
