import { apiKeyFieldSchema, applicationFieldSchema, ApplicationField } from '@gateway/contracts';
// class-transformer's @Type() records, which name the class of a nested DTO (typed in class-transformer-storage.d.ts).
import { defaultMetadataStorage } from 'class-transformer/cjs/storage';
import { validationMetadatasToSchemas } from 'class-validator-jsonschema';
import { JsonSchema } from './response-schemas';

export const SCHEMA_REF_PREFIX = '#/components/schemas/';

/**
 * JSON Schema of every class-validator DTO, by class name, read from the decorators the ValidationPipe applies, so a
 * DTO's rules are written once. `FollowsRule` (the console's application fields) is stated by its rule table.
 */
export function dtoSchemas(): Record<string, JsonSchema> {
  const schemas = validationMetadatasToSchemas({
    refPointerPrefix: SCHEMA_REF_PREFIX,
    classTransformerMetadataStorage: defaultMetadataStorage,
    additionalConverters: {
      applicationRule: (meta) => applicationFieldSchema(meta.constraints[0] as ApplicationField),
      apiKeyRule: (meta) => apiKeyFieldSchema(meta.constraints[0] as 'name' | 'expires_at'),
    },
  }) as Record<string, JsonSchema>;
  // The global ValidationPipe refuses a field no decorator names (forbidNonWhitelisted).
  return Object.fromEntries(
    Object.entries(schemas).map(([name, schema]) => [name, { ...schema, additionalProperties: false }]),
  );
}
