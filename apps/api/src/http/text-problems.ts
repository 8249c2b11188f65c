import { GatewayError } from '@gateway/common';
import { echoed } from '@gateway/contracts';

/**
 * Where a parsed JSON value holds text no field can take: U+0000 (which MongoDB's C-string keys and many stores cut
 * or refuse) or a lone UTF-16 surrogate (which cannot be encoded as UTF-8, so storing or hashing it throws).
 */
const BAD_TEXT = /\0|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** The `param` path of the first string or key holding bad text ('' for the body itself), or undefined. */
export function textProblemPath(value: unknown, path = ''): string | undefined {
  if (typeof value === 'string') return BAD_TEXT.test(value) ? path : undefined;
  if (typeof value !== 'object' || value === null) return undefined;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = textProblemPath(value[i], `${path}[${i}]`);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  for (const [key, item] of Object.entries(value)) {
    const keyPath = path ? `${path}.${shownKey(key)}` : shownKey(key);
    if (BAD_TEXT.test(key)) return keyPath;
    const found = textProblemPath(item, keyPath);
    if (found !== undefined) return found;
  }
  return undefined;
}

/** A key as `param` names it: bad text replaced, and cut so a huge key is not echoed back whole. */
function shownKey(key: string): string {
  const safe = key.replace(new RegExp(BAD_TEXT.source, 'g'), '\uFFFD');
  return echoed(safe);
}

/** The refusal of bad text at `path` (a body field, a path parameter, a query parameter). */
export function badTextError(path: string): GatewayError {
  return new GatewayError(
    'InvalidParameter',
    `${path || 'the body'} holds U+0000 or an unpaired surrogate; send text as valid Unicode without NUL`,
    { param: path || undefined },
  );
}
