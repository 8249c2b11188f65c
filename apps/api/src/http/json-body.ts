import { GatewayError } from '@gateway/common';
import { echoed } from '@gateway/contracts';
import Ajv, { ErrorObject, JSONSchemaType, ValidateFunction } from 'ajv';

/**
 * Request bodies whose shape is OpenAI's (chat messages, tools, response formats: unions keyed by `role` or `type`)
 * are checked against a JSON Schema rather than DTO classes, which cannot say "this or that shape" with a precise
 * error. One Ajv instance compiles each schema once at start-up; a check is then a plain function call.
 */
const ajv = new Ajv({
  allErrors: false,
  discriminator: true,
  strict: true,
  // A discriminated union states `required` on the union and its properties in each branch, as Ajv's docs show.
  strictRequired: false,
  strictTypes: false,
  // parentSchema on errors: a discriminator's error lists the values its branches take.
  verbose: true,
});

export type BodyCheck<T> = (body: unknown) => T;

/** A checker for `schema`: returns the body typed, or throws 400 InvalidParameter naming the first problem. */
export function jsonBodyCheck<T>(schema: JSONSchemaType<T> | Record<string, unknown>): BodyCheck<T> {
  const validate = ajv.compile<T>(schema as JSONSchemaType<T>);
  return (body) => {
    if (typeof body !== 'object' || body === null || Array.isArray(body))
      throw new GatewayError('InvalidParameter', 'the request body must be a JSON object');
    if (validate(body)) return body;
    throw problemOf(validate);
  };
}

function problemOf(validate: ValidateFunction): GatewayError {
  const error = mostSpecific(validate.errors ?? []);
  if (!error) return new GatewayError('InvalidParameter', 'the request body is invalid');
  let param = paramOf(error.instancePath);
  let message: string;
  switch (error.keyword) {
    case 'additionalProperties': {
      const extra = (error.params as { additionalProperty: string }).additionalProperty;
      param = joinParam(param, echoed(extra));
      return new GatewayError('InvalidParameter', `${param} is not a supported parameter`, { param });
    }
    case 'required': {
      const missing = (error.params as { missingProperty: string }).missingProperty;
      param = joinParam(param, echoed(missing));
      return new GatewayError('InvalidParameter', `${param} is required`, { param });
    }
    case 'enum':
      message = `must be one of ${(error.params as { allowedValues: unknown[] }).allowedValues.map(shown).join(', ')}`;
      break;
    case 'const':
      message = `must be ${shown((error.params as { allowedValue: unknown }).allowedValue)}`;
      break;
    case 'discriminator': {
      const { tag, tagValue } = error.params as { tag: string; tagValue: unknown };
      param = joinParam(param, tag);
      const accepted = acceptedTags(error.parentSchema, tag);
      message = `${JSON.stringify(tagValue)} is not accepted here${accepted ? `; use one of ${accepted}` : ''}`;
      break;
    }
    default:
      message = error.message ?? 'is invalid';
  }
  return new GatewayError('InvalidParameter', `${param || 'the body'} ${message}`, { param: param || undefined });
}

/**
 * Ajv reports a union's failure on the union itself; the deepest error says what the caller got wrong, e.g.
 * `messages[2].content[0].text must be string` rather than `messages[2] must match a schema in anyOf`. At one
 * depth, a branch's own limit (`stop` has more than 4 items) says more than another branch's type not matching.
 */
function mostSpecific(errors: ErrorObject[]): ErrorObject | undefined {
  const rank = (error: ErrorObject) => depth(error.instancePath) * 2 + (UNION_NOISE.has(error.keyword) ? 0 : 1);
  return errors.reduce<ErrorObject | undefined>(
    (best, error) => (!best || rank(error) > rank(best) ? error : best),
    undefined,
  );
}

/** What a union says about every branch that did not match: not the caller's mistake itself. */
const UNION_NOISE = new Set(['type', 'anyOf', 'oneOf']);

/** The values a discriminated union takes for `tag`, from its branches' `const`s. */
function acceptedTags(schema: unknown, tag: string): string | undefined {
  const branches = (schema as { oneOf?: { properties?: Record<string, { const?: unknown }> }[] } | undefined)?.oneOf;
  const values = branches?.map((branch) => branch.properties?.[tag]?.const).filter((value) => value !== undefined);
  return values?.length ? values.map(shown).join(', ') : undefined;
}

function depth(path: string): number {
  return path === '' ? 0 : path.split('/').length;
}

/** `/messages/0/content` → `messages[0].content`. */
function paramOf(instancePath: string): string {
  return instancePath
    .split('/')
    .slice(1)
    .map((segment) => segment.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce(joinParam, '');
}

function joinParam(parent: string, key: string): string {
  if (/^\d+$/.test(key)) return `${parent}[${key}]`;
  return parent ? `${parent}.${key}` : key;
}

function shown(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}
