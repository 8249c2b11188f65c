import {
  apiKeyExpiryProblem,
  apiKeyNameProblem,
  ApplicationField,
  ApplicationFields,
  ApplicationType,
  BudgetPeriod,
  applicationFieldProblem,
  describeFieldProblem,
} from '@gateway/contracts';
import { Type } from 'class-transformer';
import {
  IsDefined,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  Matches,
  Max,
  Min,
  ValidateBy,
  ValidateIf,
  ValidateNested,
} from 'class-validator';

/**
 * Checks a field by the rules the console's forms check too (`@gateway/contracts`), with the same message. The
 * property path in the message is the field's; the validation pipe prefixes the parent for nested fields.
 */
export function FollowsRule(field: ApplicationField): PropertyDecorator {
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

  /** A money budget in the catalog currency ("12.50"); "" or "0" removes it. */
  @Optional()
  @FollowsRule('budget_amount')
  budget_amount?: string;

  /** The budget's period, `month` when left out; only together with budget_amount. */
  @Optional()
  @FollowsRule('budget_period')
  budget_period?: BudgetPeriod;

  @Optional()
  @FollowsRule('ip_whitelist')
  ip_whitelist?: string[];

  /** An empty string removes the callback. */
  @Optional()
  @FollowsRule('callback_url')
  callback_url?: string;

  /** Keep each call's request and response bodies, capped and without images; off by default. */
  @Optional()
  @FollowsRule('log_bodies')
  log_bodies?: boolean;

  /** Days kept bodies live before they are deleted, 1–30. */
  @Optional()
  @FollowsRule('body_retention_days')
  body_retention_days?: number;
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

  /** Rotate this key only (its replacement keeps its name and expiry); without it, every live key of the application. */
  @IsOptional()
  @IsString()
  @Matches(/^key_[0-9A-Za-z]{1,40}$/, { message: 'key_id must be a key id (key_…)' })
  key_id?: string;
}

/** A rule of libs/contracts/src/api-key-fields.ts, with its message. */
function KeyRule(field: 'name' | 'expires_at', problem: (value: unknown) => string | null): PropertyDecorator {
  return ValidateBy({
    name: 'apiKeyRule',
    // Read by the OpenAPI document (apps/api/src/openapi/dto-schemas.ts).
    constraints: [field],
    validator: {
      validate: (value: unknown) => problem(value) === null,
      defaultMessage: (args) => (args ? problem(args.value) : null) ?? 'not valid',
    },
  });
}

export class CreateApiKeyDto {
  /** What the key is for, e.g. "production" or "ci". */
  @IsDefined({ message: 'name is required' })
  @KeyRule('name', apiKeyNameProblem)
  name: string;

  /** When the key stops working (ISO 8601, at most 730 days ahead); without it, never. */
  @IsOptional()
  @KeyRule('expires_at', (value) => apiKeyExpiryProblem(value))
  expires_at?: string;
}

export class ApplicationListQuery {
  /** `active` (the default): deleted applications are left out; `all`: they are listed too, as `revoked`. */
  @IsOptional()
  @IsIn(['active', 'all'])
  status?: 'active' | 'all';
}
