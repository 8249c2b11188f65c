/**
 * A caller's JSON Schema (response_format json_schema, a tool's parameters) as node-llama-cpp's GbnfJsonSchema, the
 * subset its grammar generator enforces token by token (node_modules/node-llama-cpp/dist/utils/gbnfJson/types.d.ts).
 * A keyword the grammar cannot enforce is refused with its path, never dropped: output that ignores part of the
 * schema would not validate. What the grammar enforces is narrower than what the schema allows, never wider:
 * every listed property is always generated and no unlisted one, which is valid whether or not it was required.
 * docs/decisions/local-engine.md lists the subset.
 */

export type GrammarSchema = Record<string, unknown>;

/** The schema, and the definitions its `$ref`s point to (to be placed at the root of the grammar's schema). */
export interface TranslatedSchema {
  schema: GrammarSchema;
  defs: Record<string, GrammarSchema>;
}

export class UnsupportedSchemaError extends Error {
  override readonly name = 'UnsupportedSchemaError';
}

/** Keywords that describe and constrain nothing, and those of other vocabularies: left out of the grammar. */
const ANNOTATIONS = new Set([
  '$schema',
  '$id',
  '$comment',
  'title',
  'description',
  'default',
  'examples',
  'deprecated',
  'readOnly',
  'writeOnly',
  'contentMediaType',
  'contentEncoding',
  '$defs',
  'definitions',
  'strict',
]);

/** Keywords the grammar enforces, by the type they apply to. */
const TYPE_KEYWORDS: Record<string, Set<string>> = {
  string: new Set(['minLength', 'maxLength', 'format']),
  number: new Set(['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum']),
  integer: new Set(['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum']),
  boolean: new Set(),
  null: new Set(),
  object: new Set(['properties', 'required', 'additionalProperties', 'minProperties', 'maxProperties']),
  array: new Set(['items', 'prefixItems', 'minItems', 'maxItems', 'additionalItems']),
};

/** JSON Schema keywords that constrain values and that the grammar cannot enforce. */
const UNENFORCEABLE = new Set([
  'pattern',
  'patternProperties',
  'propertyNames',
  'multipleOf',
  'uniqueItems',
  'contains',
  'minContains',
  'maxContains',
  'allOf',
  'not',
  'if',
  'then',
  'else',
  'dependentRequired',
  'dependentSchemas',
  'dependencies',
  'unevaluatedProperties',
  'unevaluatedItems',
  '$dynamicRef',
  '$recursiveRef',
]);

const FORMATS = new Set(['date-time', 'date', 'time']);

/** A range of integers this small becomes an enum, which the grammar can enforce. */
const MAX_ENUMERATED_INTEGERS = 256;
/**
 * zod and others bound every integer to JavaScript's safe range. The grammar's integers have at most 16 digits,
 * which nearly always stays inside it; the output is validated after generation all the same (json-validation.ts).
 */
const SAFE_INTEGER_BOUND = Number.MAX_SAFE_INTEGER;

/** Any JSON value: the grammar's "no type" would mean null only. */
const ANY_VALUE: GrammarSchema = {
  oneOf: [
    { type: ['string', 'number', 'boolean', 'null'] },
    { type: 'array' },
    { type: 'object', additionalProperties: true },
  ],
};

/**
 * Translates `schema`, found at `at` in the request (for messages), into node-llama-cpp's form. `defsPrefix`
 * keeps apart the definitions of schemas that share one grammar (one per tool).
 */
export function toGrammarSchema(schema: unknown, at: string, defsPrefix = ''): TranslatedSchema {
  const translator = new Translator(schema, at, defsPrefix);
  return { schema: translator.translate(schema, at), defs: translator.defs };
}

class Translator {
  readonly defs: Record<string, GrammarSchema> = {};
  private readonly rootDefs: Record<string, unknown>;
  private readonly pending = new Set<string>();

  constructor(
    private readonly root: unknown,
    private readonly at: string,
    private readonly defsPrefix: string,
  ) {
    const node = isObject(root) ? root : {};
    this.rootDefs = {
      ...(isObject(node.definitions) ? node.definitions : {}),
      ...(isObject(node.$defs) ? node.$defs : {}),
    };
  }

  translate(schema: unknown, path: string): GrammarSchema {
    if (schema === true) return ANY_VALUE;
    if (schema === false) throw this.refuse(path, 'is `false`, which no value matches');
    if (!isObject(schema)) throw this.refuse(path, 'is not a JSON Schema object');
    for (const keyword of Object.keys(schema)) {
      if (UNENFORCEABLE.has(keyword))
        throw this.refuse(`${path}.${keyword}`, 'is a constraint the local model cannot enforce while generating');
    }
    if (schema.$ref !== undefined) return this.reference(schema, path);
    const alternatives = schema.anyOf ?? schema.oneOf;
    if (alternatives !== undefined) return this.alternatives(schema, alternatives, path);
    if (schema.const !== undefined) return this.literal(schema, 'const', path);
    if (schema.enum !== undefined) return this.literal(schema, 'enum', path);
    const types = typesOf(schema, path, this);
    if (types.length === 0) {
      const constraints = Object.keys(schema).filter((keyword) => !ANNOTATIONS.has(keyword) && keyword !== 'type');
      if (constraints.length > 0) throw this.refuse(`${path}.${constraints[0]}`, 'applies to no type');
      return ANY_VALUE;
    }
    if (types.length > 1) {
      return { oneOf: types.map((type) => this.typed(schema, type, path)) };
    }
    return this.typed(schema, types[0], path);
  }

  /**
   * The schema for values of one type. Keywords of the other types apply only to values of those; unknown keywords
   * are annotations in JSON Schema, which validators ignore too.
   */
  private typed(schema: Record<string, unknown>, type: string, path: string): GrammarSchema {
    switch (type) {
      case 'string':
        return this.string(schema, path);
      case 'number':
      case 'integer':
        return this.number(schema, type, path);
      case 'object':
        return this.object(schema, path);
      case 'array':
        return this.array(schema, path);
      default:
        return { type };
    }
  }

  private string(schema: Record<string, unknown>, path: string): GrammarSchema {
    if (schema.format !== undefined) {
      if (typeof schema.format !== 'string' || !FORMATS.has(schema.format))
        throw this.refuse(`${path}.format`, `can only be ${[...FORMATS].join(', ')} for the local model`);
      if (schema.minLength !== undefined || schema.maxLength !== undefined)
        throw this.refuse(`${path}.format`, 'cannot be combined with minLength or maxLength for the local model');
      return { type: 'string', format: schema.format };
    }
    const lengths = {
      ...(schema.minLength !== undefined ? { minLength: this.count(schema.minLength, `${path}.minLength`) } : {}),
      ...(schema.maxLength !== undefined ? { maxLength: this.count(schema.maxLength, `${path}.maxLength`) } : {}),
    };
    return { type: 'string', ...lengths };
  }

  /** Bounds are enforced only as an enum of a small integer range, or when they are JavaScript's safe range. */
  private number(schema: Record<string, unknown>, type: 'number' | 'integer', path: string): GrammarSchema {
    const bounds = ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum'].filter(
      (keyword) => schema[keyword] !== undefined,
    );
    if (bounds.length === 0) return { type };
    for (const keyword of bounds) {
      if (typeof schema[keyword] !== 'number') throw this.refuse(`${path}.${keyword}`, 'must be a number');
    }
    const low = lowestInteger(schema);
    const high = highestInteger(schema);
    if (type === 'integer' && low >= -SAFE_INTEGER_BOUND && high <= SAFE_INTEGER_BOUND) {
      if (high < low) throw this.refuse(path, 'allows no integer');
      if (high - low < MAX_ENUMERATED_INTEGERS) {
        return { enum: Array.from({ length: high - low + 1 }, (_, i) => low + i) };
      }
      if (low === -SAFE_INTEGER_BOUND && high === SAFE_INTEGER_BOUND) return { type };
    }
    throw this.refuse(
      `${path}.${bounds[0]}`,
      `is a range the local model cannot enforce while generating; it can for integers in a range of at most ${MAX_ENUMERATED_INTEGERS} values`,
    );
  }

  private object(schema: Record<string, unknown>, path: string): GrammarSchema {
    const properties = schema.properties ?? {};
    if (!isObject(properties)) throw this.refuse(`${path}.properties`, 'must be an object');
    const translated: Record<string, GrammarSchema> = {};
    for (const [name, value] of Object.entries(properties)) {
      translated[name] = this.translate(value, `${path}.properties.${name}`);
    }
    const hasProperties = Object.keys(translated).length > 0;
    const extra = schema.additionalProperties;
    // JSON Schema allows other properties unless told not to; the grammar generates them only when nothing else is
    // listed (an open object), or when their schema is given.
    const additionalProperties =
      extra === undefined
        ? !hasProperties
        : extra === true || extra === false
          ? extra
          : this.translate(extra, `${path}.additionalProperties`);
    return {
      type: 'object',
      properties: translated,
      additionalProperties,
      ...(schema.minProperties !== undefined
        ? { minProperties: this.count(schema.minProperties, `${path}.minProperties`) }
        : {}),
      ...(schema.maxProperties !== undefined
        ? { maxProperties: this.count(schema.maxProperties, `${path}.maxProperties`) }
        : {}),
    };
  }

  private array(schema: Record<string, unknown>, path: string): GrammarSchema {
    // Draft 7's tuple form (`items` as a list, `additionalItems` after it) is 2020-12's prefixItems and items.
    const tuple = Array.isArray(schema.items) ? schema.items : schema.prefixItems;
    const rest = Array.isArray(schema.items) ? schema.additionalItems : schema.items;
    if (tuple !== undefined && !Array.isArray(tuple)) throw this.refuse(`${path}.prefixItems`, 'must be a list');
    const prefixItems = tuple?.map((item, i) => this.translate(item, `${path}.prefixItems[${i}]`));
    let maxItems = schema.maxItems !== undefined ? this.count(schema.maxItems, `${path}.maxItems`) : undefined;
    let items: GrammarSchema | undefined;
    if (rest === false) maxItems = Math.min(maxItems ?? Infinity, prefixItems?.length ?? 0);
    else if (rest !== undefined && rest !== true) items = this.translate(rest, `${path}.items`);
    return {
      type: 'array',
      ...(items ? { items } : {}),
      ...(prefixItems ? { prefixItems } : {}),
      ...(schema.minItems !== undefined ? { minItems: this.count(schema.minItems, `${path}.minItems`) } : {}),
      ...(maxItems !== undefined ? { maxItems } : {}),
    };
  }

  private alternatives(schema: Record<string, unknown>, alternatives: unknown, path: string): GrammarSchema {
    const keyword = schema.anyOf !== undefined ? 'anyOf' : 'oneOf';
    if (schema.anyOf !== undefined && schema.oneOf !== undefined)
      throw this.refuse(path, 'has both anyOf and oneOf, which the local model cannot enforce together');
    if (!Array.isArray(alternatives) || alternatives.length === 0)
      throw this.refuse(`${path}.${keyword}`, 'must be a non-empty list');
    assertOnlyAnnotations(schema, [keyword], path, this);
    return { oneOf: alternatives.map((alternative, i) => this.translate(alternative, `${path}.${keyword}[${i}]`)) };
  }

  private literal(schema: Record<string, unknown>, keyword: 'const' | 'enum', path: string): GrammarSchema {
    const values = keyword === 'const' ? [schema.const] : schema.enum;
    if (!Array.isArray(values) || values.length === 0) throw this.refuse(`${path}.enum`, 'must be a non-empty list');
    if (!values.every((value) => value === null || ['string', 'number', 'boolean'].includes(typeof value)))
      throw this.refuse(`${path}.${keyword}`, 'can only list strings, numbers, booleans and null for the local model');
    // The value is fixed: the other keywords beside it can only agree or contradict (which validation reports).
    return keyword === 'const' ? { const: values[0] } : { enum: values };
  }

  /** `#/$defs/name`, `#/definitions/name` or `#` (the root, for recursive schemas). */
  private reference(schema: Record<string, unknown>, path: string): GrammarSchema {
    assertOnlyAnnotations(schema, ['$ref'], path, this);
    const ref = schema.$ref;
    const match = typeof ref === 'string' ? /^#(?:\/(\$defs|definitions)\/([^/]+))?$/.exec(ref) : null;
    if (!match) throw this.refuse(`${path}.$ref`, 'can only point to #, #/$defs/… or #/definitions/… here');
    const name = match[2] === undefined ? '' : decodePointer(match[2]);
    const target = match[2] === undefined ? this.root : this.rootDefs[name];
    if (target === undefined) throw this.refuse(`${path}.$ref`, `points to ${String(ref)}, which is not defined`);
    const defName = `${this.defsPrefix}${match[2] === undefined ? '__root' : name}`;
    if (!(defName in this.defs) && !this.pending.has(defName)) {
      this.pending.add(defName); // a recursive reference meets itself here
      this.defs[defName] = this.translate(target, match[2] === undefined ? this.at : `${this.at}.$defs.${name}`);
      this.pending.delete(defName);
    }
    return { $ref: `#/$defs/${defName}` };
  }

  count(value: unknown, path: string): number {
    if (!Number.isInteger(value) || (value as number) < 0) throw this.refuse(path, 'must be a whole number');
    return value as number;
  }

  refuse(path: string, reason: string): UnsupportedSchemaError {
    return new UnsupportedSchemaError(`${path} ${reason}`);
  }
}

function typesOf(schema: Record<string, unknown>, path: string, translator: Translator): string[] {
  const type = schema.type;
  if (type === undefined) {
    // No type: inferred from the keywords that only apply to one.
    return Object.entries(TYPE_KEYWORDS)
      .filter(([, keywords]) => Object.keys(schema).some((keyword) => keywords.has(keyword)))
      .map(([name]) => name)
      .filter((name) => name !== 'integer');
  }
  const types = Array.isArray(type) ? type : [type];
  for (const entry of types) {
    if (typeof entry !== 'string' || !(entry in TYPE_KEYWORDS))
      throw translator.refuse(`${path}.type`, `lists ${String(entry)}, which is not a JSON Schema type`);
  }
  return [...new Set(types as string[])];
}

function assertOnlyAnnotations(
  schema: Record<string, unknown>,
  allowed: string[],
  path: string,
  translator: Translator,
): void {
  const other = Object.keys(schema).find((keyword) => !allowed.includes(keyword) && !ANNOTATIONS.has(keyword));
  if (other !== undefined)
    throw translator.refuse(
      `${path}.${other}`,
      `cannot be combined with ${allowed.join(', ')} for the local model; move it inside`,
    );
}

function lowestInteger(schema: Record<string, unknown>): number {
  const candidates = [-Infinity];
  if (typeof schema.minimum === 'number') candidates.push(Math.ceil(schema.minimum));
  if (typeof schema.exclusiveMinimum === 'number') candidates.push(Math.floor(schema.exclusiveMinimum) + 1);
  return Math.max(...candidates);
}

function highestInteger(schema: Record<string, unknown>): number {
  const candidates = [Infinity];
  if (typeof schema.maximum === 'number') candidates.push(Math.floor(schema.maximum));
  if (typeof schema.exclusiveMaximum === 'number') candidates.push(Math.ceil(schema.exclusiveMaximum) - 1);
  return Math.min(...candidates);
}

function decodePointer(segment: string): string {
  return decodeURIComponent(segment).replace(/~1/g, '/').replace(/~0/g, '~');
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
