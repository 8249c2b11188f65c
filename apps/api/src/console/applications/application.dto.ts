import {
  ApplicationField,
  ApplicationFields,
  ApplicationType,
  applicationFieldProblem,
  describeFieldProblem,
} from '@gateway/contracts';
import { Type } from 'class-transformer';
import { IsDefined, IsInt, IsOptional, Max, Min, ValidateBy, ValidateIf, ValidateNested } from 'class-validator';

/**
 * Checks a field by the rules the console's forms check too (`@gateway/contracts`), with the same message. The
 * property path in the message is the field's; the validation pipe prefixes the parent for nested fields.
 */
function FollowsRule(field: ApplicationField): PropertyDecorator {
  return ValidateBy({
    name: 'applicationRule',
    // Read by the OpenAPI document (apps/api/src/openapi/dto-schemas.ts), which states the rule as JSON Schema.
    constraints: [field],
    validator: {
      validate: (value: unknown) => applicationFieldProblem(field, value) === null,
      defaultMessage: (args) => {
        const problem = args ? applicationFieldProblem(field, args.value) : null;
        return args && problem ? describeFieldProblem(args.property, problem) : `${field} is not valid`;
      },
    },
  });
}

/**
 * A field left out is not set. Unlike `@IsOptional()`, null is checked by the field's rule and refused: stored, it
 * would read back as null where the application's view promises a list or a text.
 */
const Optional = () => ValidateIf((_object, value) => value !== undefined);

export class ScopeDto implements Partial<ApplicationFields['scope']> {
  @Optional()
  @FollowsRule('scope.capabilities')
  capabilities?: string[];

  @Optional()
  @FollowsRule('scope.models')
  models?: string[];
}

/**
 * Every console field of an application except its name; 0 means unlimited for the limits. The wire shape is
 * ApplicationFields (libs/contracts), which the console's form sends.
 */
class ApplicationFieldsDto implements Partial<Omit<ApplicationFields, 'name' | 'scope'>> {
  @Optional()
  @FollowsRule('description')
  description?: string;

  @Optional()
  @FollowsRule('type')
  type?: ApplicationType;

  @Optional()
  @FollowsRule('usage_scenario')
  usage_scenario?: string;

  /** Expected calls per day. */
  @Optional()
  @FollowsRule('expected_volume')
  expected_volume?: number;

  @Optional()
  @ValidateNested()
  @Type(() => ScopeDto)
  scope?: ScopeDto;

  @Optional()
  @FollowsRule('daily_call_limit')
  daily_call_limit?: number;

  @Optional()
  @FollowsRule('concurrency_limit')
  concurrency_limit?: number;

  @Optional()
  @FollowsRule('requests_per_minute')
  requests_per_minute?: number;

  @Optional()
  @FollowsRule('token_quota')
  token_quota?: number;

  @Optional()
  @FollowsRule('ip_whitelist')
  ip_whitelist?: string[];

  /** An empty string removes the callback. */
  @Optional()
  @FollowsRule('callback_url')
  callback_url?: string;
}

export class CreateApplicationDto extends ApplicationFieldsDto implements Partial<Omit<ApplicationFields, 'scope'>> {
  @IsDefined({ message: 'name is required' })
  @FollowsRule('name')
  name: string;
}

export class UpdateApplicationDto extends ApplicationFieldsDto implements Partial<Omit<ApplicationFields, 'scope'>> {
  @Optional()
  @FollowsRule('name')
  name?: string;
}

export class RotateKeyDto {
  /** How long the previous key keeps working; 0 revokes it at once. */
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(7 * 86_400)
  grace_seconds?: number;
}
