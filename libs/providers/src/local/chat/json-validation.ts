/**
 * Checks the local model's JSON against the caller's schema after generation. The grammar already keeps the output
 * inside the schema; this is the proof, and catches the corners the grammar is wider than the schema (an integer
 * of 16 digits, overlapping oneOf branches), so nothing unvalidated is ever answered.
 */
import Ajv, { ValidateFunction } from 'ajv';
import Ajv2019 from 'ajv/dist/2019';
import Ajv2020 from 'ajv/dist/2020';

export type SchemaCheck = (value: unknown) => string | null;

// The formats the grammar generates (json-schema-grammar.ts), as node-llama-cpp's GbnfFormatString writes them.
const TIME = '([01]\\d|2[0-3]):[0-5]\\d:[0-5]\\d(\\.\\d{3})?(Z|[+-]([01]\\d|2[0-3]):[0-5]\\d)';
const DATE = '\\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\\d|3[01])';
const FORMATS = {
  date: new RegExp(`^${DATE}$`),
  time: new RegExp(`^${TIME}$`),
  'date-time': new RegExp(`^${DATE}T${TIME}$`),
};

// Not strict: keywords Ajv does not know are annotations, as the grammar treats them too.
const OPTIONS = { strict: false, allErrors: false, logger: false, formats: FORMATS } as const;
const validators = {
  draft7: new Ajv(OPTIONS),
  draft2019: new Ajv2019(OPTIONS),
  draft2020: new Ajv2020(OPTIONS),
};

const compiled = new Map<string, ValidateFunction>();
const MAX_COMPILED = 64;

/**
 * A check for `schema` (the draft its `$schema` names; 2020-12 when it names none): null when a value is valid,
 * otherwise the first problem. Throws when the schema itself is not valid JSON Schema.
 */
export function schemaCheck(schema: Record<string, unknown>): SchemaCheck {
  const key = JSON.stringify(schema);
  let validate = compiled.get(key);
  if (!validate) {
    const { $schema, ...rest } = schema;
    validate = validatorFor($schema).compile(rest);
    if (compiled.size >= MAX_COMPILED) compiled.delete(compiled.keys().next().value as string);
    compiled.set(key, validate);
  }
  const check = validate;
  return (value) => {
    if (check(value)) return null;
    const error = check.errors?.[0];
    return error ? `${error.instancePath || '(the value)'} ${error.message ?? 'is invalid'}` : 'is invalid';
  };
}

function validatorFor(draft: unknown) {
  if (typeof draft !== 'string') return validators.draft2020;
  if (/draft-0[4-7]/.test(draft)) return validators.draft7;
  if (draft.includes('2019-09')) return validators.draft2019;
  return validators.draft2020;
}
