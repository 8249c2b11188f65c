import { schemaCheck } from './json-validation';

describe('schemaCheck', () => {
  const person = {
    $schema: 'http://json-schema.org/draft-07/schema#',
    type: 'object',
    properties: { name: { type: 'string' }, age: { type: 'integer', minimum: 0 } },
    required: ['name', 'age'],
    additionalProperties: false,
  };

  it('passes a valid value and names the first problem of an invalid one', () => {
    const check = schemaCheck(person);
    expect(check({ name: 'Ada', age: 36 })).toBeNull();
    expect(check({ name: 'Ada', age: 1e-5 })).toBe('/age must be integer');
    expect(check({ name: 'Ada' })).toBe("(the value) must have required property 'age'");
  });

  it('reads the draft the schema names: draft 7 tuples, 2020-12 prefixItems', () => {
    expect(
      schemaCheck({ $schema: 'http://json-schema.org/draft-07/schema#', items: [{ type: 'string' }] })([1]),
    ).toMatch(/must be string/);
    expect(schemaCheck({ prefixItems: [{ type: 'string' }] })([1])).toMatch(/must be string/);
  });

  it('checks the date formats the grammar generates', () => {
    const check = schemaCheck({ type: 'string', format: 'date-time' });
    expect(check('2026-11-26T13:47:40Z')).toBeNull();
    expect(check('yesterday')).toMatch(/must match format "date-time"/);
  });

  it('ignores keywords it does not know, as annotations', () => {
    expect(schemaCheck({ type: 'string', 'x-order': 1, nullable: true })('a')).toBeNull();
  });

  it('throws on a schema that is not JSON Schema', () => {
    expect(() => schemaCheck({ type: 'strin' })).toThrow();
  });
});
