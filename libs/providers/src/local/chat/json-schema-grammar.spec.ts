import { toGrammarSchema, UnsupportedSchemaError } from './json-schema-grammar';

const translate = (schema: unknown) => toGrammarSchema(schema, 'schema');

describe('toGrammarSchema', () => {
  it('keeps the schema of a zod object as OpenAI’s helper sends it, with the safe-integer bounds as a plain integer', () => {
    const schema = {
      $schema: 'http://json-schema.org/draft-07/schema#',
      type: 'object',
      properties: {
        name: { type: 'string', description: 'the name' },
        age: { type: 'integer', minimum: -9007199254740991, maximum: 9007199254740991 },
        tags: { type: 'array', items: { type: 'string' } },
        kind: { type: 'string', enum: ['a', 'b'] },
        nick: { type: ['string', 'null'] },
      },
      required: ['name', 'age', 'tags', 'kind', 'nick'],
      additionalProperties: false,
    };
    expect(translate(schema)).toEqual({
      schema: {
        type: 'object',
        properties: {
          name: { type: 'string' },
          age: { type: 'integer' },
          tags: { type: 'array', items: { type: 'string' } },
          kind: { enum: ['a', 'b'] },
          nick: { oneOf: [{ type: 'string' }, { type: 'null' }] },
        },
        additionalProperties: false,
      },
      defs: {},
    });
  });

  it('turns a small integer range into an enum, which the grammar enforces', () => {
    expect(translate({ type: 'integer', minimum: 1, exclusiveMaximum: 4 }).schema).toEqual({ enum: [1, 2, 3] });
  });

  it('refuses numeric bounds it cannot enforce, naming the keyword', () => {
    expect(() => translate({ type: 'object', properties: { x: { type: 'number', minimum: 0 } } })).toThrow(
      new UnsupportedSchemaError(
        'schema.properties.x.minimum is a range the local model cannot enforce while generating; it can for integers in a range of at most 256 values',
      ),
    );
    expect(() => translate({ type: 'integer', minimum: 0, maximum: 100_000 })).toThrow(/schema.minimum is a range/);
  });

  it.each([
    [{ type: 'string', pattern: '^a+$' }, 'schema.pattern'],
    [{ type: 'string', format: 'email' }, 'schema.format'],
    [{ allOf: [{ type: 'string' }] }, 'schema.allOf'],
    [{ type: 'array', uniqueItems: true }, 'schema.uniqueItems'],
    [{ type: 'object', properties: { a: { not: { type: 'null' } } } }, 'schema.properties.a.not'],
    [{ $ref: 'https://example.com/schema.json' }, 'schema.$ref'],
    [{ enum: [{ a: 1 }] }, 'schema.enum'],
    [{ type: 'object', patternProperties: { '^x': {} } }, 'schema.patternProperties'],
  ])('refuses %j, naming %s', (schema, path) => {
    expect(() => translate(schema)).toThrow(UnsupportedSchemaError);
    expect(() => translate(schema)).toThrow(new RegExp(`^${path.replace(/[.$]/g, '\\$&')} `));
  });

  it('makes an object without listed properties open, and one with them closed', () => {
    expect(translate({ type: 'object' }).schema).toEqual({
      type: 'object',
      properties: {},
      additionalProperties: true,
    });
    expect(translate({ type: 'object', properties: { a: { type: 'boolean' } } }).schema).toEqual({
      type: 'object',
      properties: { a: { type: 'boolean' } },
      additionalProperties: false,
    });
  });

  it('reads anyOf and oneOf as alternatives, and a missing type from its keywords', () => {
    expect(translate({ anyOf: [{ type: 'string' }, { properties: { a: { const: 1 } } }] }).schema).toEqual({
      oneOf: [{ type: 'string' }, { type: 'object', properties: { a: { const: 1 } }, additionalProperties: false }],
    });
  });

  it('stands in any JSON value for an empty schema, which the grammar would read as null', () => {
    const any = translate({}).schema;
    expect(any).toHaveProperty('oneOf');
    expect(translate(true).schema).toEqual(any);
  });

  it('moves $defs and definitions behind a prefix, recursion included', () => {
    const schema = {
      type: 'object',
      properties: { root: { $ref: '#/$defs/node' }, other: { $ref: '#/definitions/leaf' } },
      $defs: { node: { type: 'object', properties: { children: { type: 'array', items: { $ref: '#/$defs/node' } } } } },
      definitions: { leaf: { type: 'string' } },
    };
    const { schema: translated, defs } = toGrammarSchema(schema, 'tools[0].function.parameters', 't0_');
    expect(translated).toEqual({
      type: 'object',
      properties: { root: { $ref: '#/$defs/t0_node' }, other: { $ref: '#/$defs/t0_leaf' } },
      additionalProperties: false,
    });
    expect(defs).toEqual({
      t0_node: {
        type: 'object',
        properties: { children: { type: 'array', items: { $ref: '#/$defs/t0_node' } } },
        additionalProperties: false,
      },
      t0_leaf: { type: 'string' },
    });
  });

  it('reads draft 7 tuples as prefixItems, closed by additionalItems: false', () => {
    expect(
      translate({ type: 'array', items: [{ type: 'string' }, { type: 'number' }], additionalItems: false }).schema,
    ).toEqual({ type: 'array', prefixItems: [{ type: 'string' }, { type: 'number' }], maxItems: 2 });
  });

  it('keeps string lengths and the date formats the grammar writes', () => {
    expect(translate({ type: 'string', minLength: 2, maxLength: 5 }).schema).toEqual({
      type: 'string',
      minLength: 2,
      maxLength: 5,
    });
    expect(translate({ type: 'string', format: 'date-time' }).schema).toEqual({ type: 'string', format: 'date-time' });
  });
});
