import Ajv2020 from 'ajv/dist/2020';

/**
 * JSON Schema work of the OpenAI fake: the instance it answers for a tool's `parameters` or a `json_schema` response
 * format, and the checks OpenAI applies to a schema before it takes one (OPENAI_DOCS.structuredOutputs).
 */

type Schema = Record<string, unknown>;

// draft 2020-12 (what zod 4 writes) also reads draft-07 schemas; formats are not checked, as OpenAI's are not either.
const ajv = new Ajv2020({ strict: false, validateFormats: false, allErrors: false });
const compiled = new WeakMap<object, ReturnType<typeof ajv.compile>>();

function validatorOf(schema: Schema) {
  let validate = compiled.get(schema);
  if (!validate) {
    const { $schema: _dialect, $id: _id, ...rest } = schema;
    validate = ajv.compile(rest);
    compiled.set(schema, validate);
  }
  return validate;
}

/** Why `schema` is not a JSON Schema, or null when it is one. */
export function schemaProblem(schema: Schema): string | null {
  try {
    validatorOf(schema);
    return null;
  } catch (error) {
    return (error as Error).message;
  }
}

export function isValidInstance(schema: Schema, value: unknown): boolean {
  return validatorOf(schema)(value) === true;
}

/**
 * Why a schema fails Structured Outputs' strict mode, in OpenAI's words, or null: every object must set
 * `additionalProperties: false` and list every property in `required`.
 */
export function strictSchemaProblem(schema: Schema): string | null {
  return strictProblemAt(schema, []);
}

function strictProblemAt(node: unknown, path: string[]): string | null {
  if (typeof node !== 'object' || node === null) return null;
  if (Array.isArray(node)) {
    for (const item of node) {
      const problem = strictProblemAt(item, path);
      if (problem) return problem;
    }
    return null;
  }
  const schema = node as Schema;
  const context = `In context=(${path.map((step) => `'${step}'`).join(', ')}${path.length === 1 ? ',' : ''})`;
  const properties = schema.properties as Schema | undefined;
  const types = Array.isArray(schema.type) ? (schema.type as unknown[]) : [schema.type];
  if (types.includes('object') || properties) {
    if (schema.additionalProperties !== false) {
      return `${context}, 'additionalProperties' is required to be supplied and to be false.`;
    }
    const required = Array.isArray(schema.required) ? (schema.required as string[]) : [];
    const absent = Object.keys(properties ?? {}).filter((key) => !required.includes(key));
    if (absent.length > 0) {
      return `${context}, 'required' is required to be supplied and to be an array including every key in properties. Missing '${absent[0]}'.`;
    }
  }
  const children: [unknown, string[]][] = [];
  for (const [name, property] of Object.entries(properties ?? {})) children.push([property, ['properties', name]]);
  for (const key of ['items', 'prefixItems', 'anyOf', 'allOf', 'oneOf']) {
    if (key in schema) children.push([schema[key], [key]]);
  }
  for (const key of ['$defs', 'definitions']) {
    for (const [name, definition] of Object.entries((schema[key] ?? {}) as Schema)) {
      children.push([definition, [key, name]]);
    }
  }
  for (const [child, steps] of children) {
    const problem = strictProblemAt(child, [...path, ...steps]);
    if (problem) return problem;
  }
  return null;
}

/**
 * A small instance valid against `schema`: the required properties only, strings named after their property
 * (`"city"`), numbers at their lower bound, the first enum value or anyOf branch that is not null. It is checked
 * against the schema; a schema it cannot satisfy (a pattern the sample misses) throws, so the fake fails loudly
 * rather than answer something invalid.
 */
export function schemaInstance(schema: Schema, name = 'value'): unknown {
  const instance = instanceOf(schema, schema, name, 0);
  if (!isValidInstance(schema, instance)) {
    throw new Error(`cannot make an instance of the schema for ${name}: ${JSON.stringify(schema).slice(0, 200)}`);
  }
  return instance;
}

const MAX_DEPTH = 32;

/** Strings for the common formats, each valid for its format. */
const FORMAT_SAMPLES: Record<string, string> = {
  'date-time': '2025-01-01T00:00:00Z',
  date: '2025-01-01',
  time: '00:00:00Z',
  duration: 'P1D',
  email: 'user@example.com',
  hostname: 'example.com',
  ipv4: '127.0.0.1',
  ipv6: '::1',
  uri: 'https://example.com',
  url: 'https://example.com',
  uuid: '00000000-0000-4000-8000-000000000000',
};

function instanceOf(node: unknown, root: Schema, name: string, depth: number): unknown {
  if (depth > MAX_DEPTH) throw new Error(`schema for ${name} nests deeper than ${MAX_DEPTH}`);
  if (node === true || node === undefined) return name;
  if (typeof node !== 'object' || node === null) throw new Error(`schema for ${name} admits no value`);
  const schema = node as Schema;
  if (typeof schema.$ref === 'string') return instanceOf(resolve(root, schema.$ref), root, name, depth + 1);
  if ('const' in schema) return schema.const;
  if (Array.isArray(schema.enum)) return schema.enum[0];
  const branches = (schema.anyOf ?? schema.oneOf) as unknown[] | undefined;
  if (Array.isArray(branches)) {
    const chosen = branches.find((branch) => (branch as Schema)?.type !== 'null') ?? branches[0];
    return instanceOf({ ...withoutKeys(schema, ['anyOf', 'oneOf']), ...(chosen as Schema) }, root, name, depth + 1);
  }
  if (Array.isArray(schema.allOf)) {
    return instanceOf(mergeAll(withoutKeys(schema, ['allOf']), schema.allOf as Schema[]), root, name, depth + 1);
  }
  switch (typeOf(schema)) {
    case 'object':
      return objectInstance(schema, root, depth);
    case 'array':
      return arrayInstance(schema, root, name, depth);
    case 'string':
      return stringInstance(schema, name);
    case 'integer':
      return numberInstance(schema, true);
    case 'number':
      return numberInstance(schema, false);
    case 'boolean':
      return false;
    default:
      return null;
  }
}

function typeOf(schema: Schema): string {
  const type = schema.type;
  if (typeof type === 'string') return type;
  if (Array.isArray(type)) return (type.find((t) => t !== 'null') as string | undefined) ?? 'null';
  if (schema.properties || schema.required) return 'object';
  if (schema.items || schema.prefixItems) return 'array';
  return 'string';
}

function objectInstance(schema: Schema, root: Schema, depth: number): Record<string, unknown> {
  const properties = (schema.properties ?? {}) as Record<string, unknown>;
  const required = Array.isArray(schema.required) ? (schema.required as string[]) : [];
  return Object.fromEntries(required.map((key) => [key, instanceOf(properties[key], root, key, depth + 1)]));
}

function arrayInstance(schema: Schema, root: Schema, name: string, depth: number): unknown[] {
  const prefix = Array.isArray(schema.prefixItems) ? (schema.prefixItems as unknown[]) : [];
  const length = Math.max(Number(schema.minItems ?? 0), prefix.length);
  return Array.from({ length }, (_, i) => instanceOf(prefix[i] ?? schema.items, root, name, depth + 1));
}

function stringInstance(schema: Schema, name: string): string {
  const format = typeof schema.format === 'string' ? FORMAT_SAMPLES[schema.format] : undefined;
  const min = Number(schema.minLength ?? 0);
  const max = Number(schema.maxLength ?? Infinity);
  const fitted = (text: string) => text.padEnd(min, 'x').slice(0, max);
  if (format) return format;
  if (typeof schema.pattern !== 'string') return fitted(name);
  const pattern = new RegExp(schema.pattern, 'u');
  return [name, 'a', 'A', '0', ''].map(fitted).find((text) => pattern.test(text)) ?? fitted(name);
}

function numberInstance(schema: Schema, integer: boolean): number {
  let value = 0;
  if (typeof schema.minimum === 'number') value = Math.max(value, schema.minimum);
  if (typeof schema.exclusiveMinimum === 'number')
    value = Math.max(value, schema.exclusiveMinimum + (integer ? 1 : 0.5));
  if (typeof schema.maximum === 'number') value = Math.min(value, schema.maximum);
  if (typeof schema.exclusiveMaximum === 'number' && value >= schema.exclusiveMaximum) {
    value = schema.exclusiveMaximum - (integer ? 1 : 0.5);
  }
  if (integer) value = Math.ceil(value);
  const step = Number(schema.multipleOf ?? 0);
  return step > 0 ? Math.ceil(value / step) * step : value;
}

/** A `#/…` JSON pointer into the root schema. */
function resolve(root: Schema, ref: string): unknown {
  if (!ref.startsWith('#')) throw new Error(`the fake resolves local $refs only, not ${ref}`);
  return ref
    .slice(1)
    .split('/')
    .filter(Boolean)
    .map((step) => decodeURIComponent(step).replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce<unknown>((at, step) => (at as Schema | undefined)?.[step], root);
}

function withoutKeys(schema: Schema, keys: string[]): Schema {
  return Object.fromEntries(Object.entries(schema).filter(([key]) => !keys.includes(key)));
}

/** allOf as one schema: properties and required lists joined, other keywords of the later parts winning. */
function mergeAll(base: Schema, parts: Schema[]): Schema {
  return parts.reduce<Schema>((merged, part) => {
    const joined: Schema = { ...merged, ...part };
    if (merged.properties || part.properties) {
      joined.properties = { ...(merged.properties as Schema), ...(part.properties as Schema) };
    }
    if (merged.required || part.required) {
      joined.required = [...((merged.required as string[]) ?? []), ...((part.required as string[]) ?? [])];
    }
    return joined;
  }, base);
}
