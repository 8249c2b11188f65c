import { COMPATIBLE_INVALID_PARAMETER, OPENAI_ERRORS, OpenAiDialect, OpenAiErrorName } from './upstream-rules';

/**
 * The error answers of the OpenAI fake (openai-fake.ts, openai-chat-request.ts): a check throws a Refusal, which the
 * server sends as OpenAI's `{"error": {message, type, param, code}}`, or compatible mode's.
 */
export class Refusal extends Error {
  constructor(
    readonly status: number,
    readonly error: { message: string; type: string; param: string | null; code: string | null },
  ) {
    super(error.message);
  }
}

/** A value as an error message quotes it: a string as is, anything else as JSON. */
export function shown(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function errorOf(name: OpenAiErrorName, message?: string) {
  const rule = OPENAI_ERRORS[name];
  return { message: message ?? rule.message, type: rule.type, code: rule.code };
}

export function refusal(name: OpenAiErrorName, message?: string, param: string | null = null): Refusal {
  return new Refusal(OPENAI_ERRORS[name].status, { ...errorOf(name, message), param });
}

export function invalid(message: string, param: string | null = null, code: string | null = null): Refusal {
  return new Refusal(400, { message, type: 'invalid_request_error', param, code });
}

export function missing(param: string): Refusal {
  return invalid(`Missing required parameter: '${param}'.`, param, 'missing_required_parameter');
}

export function unknownParameter(param: string): Refusal {
  return invalid(`Unknown parameter: '${param}'.`, param, 'unknown_parameter');
}

/** OpenAI names a JSON type the way its messages do: "an integer", "a string", "an array", "null". */
export function wrongType(param: string, expected: string, value: unknown): Refusal {
  return invalid(
    `Invalid type for '${param}': expected ${expected}, but got ${typeName(value)} instead.`,
    param,
    'invalid_type',
  );
}

function typeName(value: unknown): string {
  if (Array.isArray(value)) return 'an array';
  if (value === null) return 'null';
  if (typeof value === 'number') return Number.isInteger(value) ? 'an integer' : 'a decimal';
  if (typeof value === 'object') return 'an object';
  return `a ${typeof value}`;
}

/** `Invalid value: 'x'. Supported values are: 'a', 'b', and 'c'.` */
export function notOneOf(param: string, value: unknown, supported: readonly string[]): Refusal {
  const quoted = supported.map((item) => `'${item}'`);
  const list =
    quoted.length === 1
      ? quoted[0]
      : quoted.length === 2
        ? quoted.join(' and ')
        : `${quoted.slice(0, -1).join(', ')}, and ${quoted.at(-1)}`;
  return invalid(`Invalid value: '${shown(value)}'. Supported values are: ${list}.`, param, 'invalid_value');
}

/** Compatible mode's refusal of a parameter (COMPATIBLE_INVALID_PARAMETER); OpenAI's own limits are wider. */
export function compatibleInvalid(message: string): Refusal {
  return new Refusal(400, {
    message: `${COMPATIBLE_INVALID_PARAMETER.prefix}${message}`,
    type: 'invalid_request_error',
    param: null,
    code: COMPATIBLE_INVALID_PARAMETER.code,
  });
}

/** A rule both dialects have, worded each its own way. */
export function refusedIn(dialect: OpenAiDialect, openai: Refusal, compatibleMessage: string): Refusal {
  return dialect === 'compatible' ? compatibleInvalid(compatibleMessage) : openai;
}
