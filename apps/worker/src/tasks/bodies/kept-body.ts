import type { KeptBody } from '@gateway/db';

/** The most of a body kept, in characters of its JSON text; the rest is cut and the body marked truncated. */
export const KEPT_BODY_MAX_CHARS = 65_536;
/** A JSON string of base64 this long or longer is taken for binary (an image, most often) and not kept. */
const MIN_BASE64_CHARS = 1_024;

/** A data URL's base64 payload, wherever it sits in a string (a field of its own, or inside Markdown). */
const DATA_URL = /data:([\w.+-]+\/[\w.+-]+)?((?:;[\w.+-]+=[\w.+-]*)*);base64,([A-Za-z0-9+/]*={0,2})/g;
/** A whole JSON string of base64. */
const BASE64_STRING = new RegExp(`"([A-Za-z0-9+/]{${MIN_BASE64_CHARS},}={0,2})"`, 'g');

/**
 * One side of a call as it is kept: its JSON text with every data URL and every long base64 string replaced by a
 * note of its size (image bytes are never stored), then cut at KEPT_BODY_MAX_CHARS. The replacements stay inside
 * their JSON strings, so an uncut body is still JSON.
 */
export function keptBody(json: string): KeptBody {
  const text = json
    .replace(DATA_URL, (_match, mediaType: string | undefined, _parameters, payload: string) =>
      notKept(`${mediaType ?? 'data'} data URL`, payload),
    )
    .replace(BASE64_STRING, (_match, payload: string) => `"${notKept('base64', payload)}"`);
  if (text.length <= KEPT_BODY_MAX_CHARS) return { text, chars: text.length, truncated: false };
  // Never half a surrogate pair: a lone one would not survive the round trip through the database as text.
  const end = isHighSurrogate(text.charCodeAt(KEPT_BODY_MAX_CHARS - 1)) ? KEPT_BODY_MAX_CHARS - 1 : KEPT_BODY_MAX_CHARS;
  return { text: text.slice(0, end), chars: text.length, truncated: true };
}

/** The note that stands for binary content: what it was and its size in bytes, nothing of the bytes themselves. */
export function notKept(what: string, base64: string): string {
  return `[${what} not kept: ${base64Bytes(base64).toLocaleString('en-US')} bytes]`;
}

function base64Bytes(base64: string): number {
  const padding = base64.endsWith('==') ? 2 : base64.endsWith('=') ? 1 : 0;
  return Math.max(0, Math.floor((base64.length * 3) / 4) - padding);
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}
