import { AppConfig } from '@gateway/common';
import { ENDPOINTS } from '@gateway/contracts';

/** Sign-up and sign-in: an email, a password and an invitation, read before anyone is known. */
export const UNAUTHENTICATED_CONSOLE_BODY_LIMIT_BYTES = 16 * 1024;
/** The largest console body, an application with 100 whitelist entries and every text field full, is under 20 KB. */
export const CONSOLE_BODY_LIMIT_BYTES = 64 * 1024;

const UNAUTHENTICATED_CONSOLE_ROUTES = new Set(['/console/api/auth/login', '/console/api/auth/register']);

/**
 * The body limit of a route, over 413 PayloadTooLarge: image edits carry up to three 10 MB images as base64, the
 * console's bodies are small forms, and every other route keeps BODY_LIMIT_BYTES (undefined: Fastify's own setting).
 */
export function routeBodyLimit(url: string, config: AppConfig): number | undefined {
  if (url === ENDPOINTS.imageEdit.path) return config.IMAGE_BODY_LIMIT_BYTES;
  if (UNAUTHENTICATED_CONSOLE_ROUTES.has(url)) return UNAUTHENTICATED_CONSOLE_BODY_LIMIT_BYTES;
  if (url.startsWith('/console/api/')) return Math.min(CONSOLE_BODY_LIMIT_BYTES, config.BODY_LIMIT_BYTES);
  return undefined;
}
