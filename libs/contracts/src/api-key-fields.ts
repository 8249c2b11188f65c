/**
 * The limits on named API keys (POST /console/api/applications/{id}/keys), checked by the API and by the console's
 * form with the same words.
 */
export const API_KEY_NAME_MAX = 64;
/** Letters and digits of any script, spaces inside, and . _ - : what fits in a list and a log line. */
const NAME_PATTERN = /^[\p{L}\p{N}._-](?:[\p{L}\p{N} ._-]*[\p{L}\p{N}._-])?$/u;
/** Live keys (neither revoked nor expired) an application may hold at once. */
export const MAX_API_KEYS_PER_APPLICATION = 20;
/** The furthest expiry a key may be given. */
export const API_KEY_MAX_LIFETIME_DAYS = 730;
/** An expiry closer than this is a mistake rather than a key anyone can use. */
export const API_KEY_MIN_LIFETIME_MS = 60_000;

/** Why `name` is not a key name, or null. */
export function apiKeyNameProblem(name: unknown): string | null {
  if (typeof name !== 'string' || name.length === 0) return 'name is required';
  if (name.length > API_KEY_NAME_MAX) return `name must be at most ${API_KEY_NAME_MAX} characters`;
  if (!NAME_PATTERN.test(name))
    return 'name may hold letters, digits, spaces, ".", "_" and "-", and may not start or end with a space';
  return null;
}

/** Why `expiresAt` (ISO 8601 with a time zone) is not an expiry a key may be given at `now`, or null. */
export function apiKeyExpiryProblem(expiresAt: unknown, now = Date.now()): string | null {
  if (typeof expiresAt !== 'string' || !/^\d{4}-\d{2}-\d{2}T[\d:.]+(Z|[+-]\d{2}:\d{2})$/.test(expiresAt))
    return 'expires_at must be an ISO 8601 date and time with a time zone, e.g. 2027-01-31T00:00:00Z';
  const at = Date.parse(expiresAt);
  if (Number.isNaN(at)) return 'expires_at is not a real date';
  if (at < now + API_KEY_MIN_LIFETIME_MS) return 'expires_at must be at least a minute in the future';
  if (at > now + API_KEY_MAX_LIFETIME_DAYS * 86_400_000)
    return `expires_at must be within ${API_KEY_MAX_LIFETIME_DAYS} days`;
  return null;
}

/** The JSON Schema the OpenAPI document states for a key field; the rules above say the rest in their messages. */
export function apiKeyFieldSchema(field: 'name' | 'expires_at'): Record<string, unknown> {
  return field === 'name'
    ? {
        type: 'string',
        minLength: 1,
        maxLength: API_KEY_NAME_MAX,
        description: 'Letters, digits, spaces inside, ".", "_" and "-".',
      }
    : {
        type: 'string',
        format: 'date-time',
        description: `At least a minute and at most ${API_KEY_MAX_LIFETIME_DAYS} days ahead.`,
      };
}
