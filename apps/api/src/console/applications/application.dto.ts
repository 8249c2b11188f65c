import { APPLICATION_TYPES, ApplicationType, CAPABILITIES } from '@gateway/db';
import { isValidAllowListEntry } from '@gateway/tenancy';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize, IsArray, IsIn, IsInt, IsNotEmpty, IsOptional, IsString, IsUrl, Max, MaxLength, Min, ValidateBy, ValidateIf, ValidateNested,
} from 'class-validator';

export class ScopeDto {
  @IsOptional() @IsArray() @ArrayMaxSize(3) @IsIn(CAPABILITIES, { each: true })
  capabilities?: string[];

  @IsOptional() @IsArray() @ArrayMaxSize(100) @IsString({ each: true }) @MaxLength(200, { each: true })
  models?: string[];
}

function IsAllowListEntry(): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isAllowListEntry',
      validator: {
        validate: (value: unknown) => typeof value === 'string' && isValidAllowListEntry(value),
        defaultMessage: () => 'ip_whitelist entries must be IPv4/IPv6 addresses or CIDR ranges',
      },
    },
    { each: true },
  );
}

/** Every console field of an application except its name; 0 means unlimited for the limits. */
class ApplicationFieldsDto {
  @IsOptional() @IsString() @MaxLength(1000)
  description?: string;

  @IsOptional() @IsIn(APPLICATION_TYPES)
  type?: ApplicationType;

  @IsOptional() @IsString() @MaxLength(1000)
  usage_scenario?: string;

  /** Expected calls per day. */
  @IsOptional() @IsInt() @Min(0) @Max(1e12)
  expected_volume?: number;

  @IsOptional() @ValidateNested() @Type(() => ScopeDto)
  scope?: ScopeDto;

  @IsOptional() @IsInt() @Min(0) @Max(1e12)
  daily_call_limit?: number;

  @IsOptional() @IsInt() @Min(0) @Max(100_000)
  concurrency_limit?: number;

  @IsOptional() @IsInt() @Min(0) @Max(1e9)
  requests_per_minute?: number;

  @IsOptional() @IsInt() @Min(0) @Max(1e15)
  token_quota?: number;

  @IsOptional() @IsArray() @ArrayMaxSize(100) @IsAllowListEntry()
  ip_whitelist?: string[];

  /** An empty string removes the callback. */
  @IsOptional() @ValidateIf((dto: { callback_url?: string }) => dto.callback_url !== '')
  @IsUrl({ protocols: ['http', 'https'], require_protocol: true, require_tld: false }) @MaxLength(2048)
  callback_url?: string;
}

export class CreateApplicationDto extends ApplicationFieldsDto {
  @IsString() @IsNotEmpty() @MaxLength(100)
  name: string;
}

export class UpdateApplicationDto extends ApplicationFieldsDto {
  @IsOptional() @IsString() @IsNotEmpty() @MaxLength(100)
  name?: string;
}

export class RotateKeyDto {
  /** How long the previous key keeps working; 0 revokes it at once. */
  @IsOptional() @IsInt() @Min(0) @Max(7 * 86_400)
  grace_seconds?: number;
}
