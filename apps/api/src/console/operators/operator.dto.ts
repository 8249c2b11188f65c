import { Type } from 'class-transformer';
import { IsBoolean, IsEmail, IsIn, IsInt, IsOptional, Max, MaxLength, Min, ValidateNested } from 'class-validator';

export class CeilingsDto {
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(10_000)
  max_applications?: number | null;

  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(1_000_000_000)
  max_daily_call_limit?: number | null;

  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(1_000_000_000_000)
  max_token_quota?: number | null;
}

export class UpdateAccountDto {
  @IsOptional()
  @IsBoolean()
  disabled?: boolean;

  @IsOptional()
  @IsIn(['admin', 'user'])
  role?: 'admin' | 'user';

  @IsOptional()
  @ValidateNested()
  @Type(() => CeilingsDto)
  ceilings?: CeilingsDto;
}

export class InviteDto {
  /** Only this email may use the invitation. */
  @IsOptional()
  @IsEmail()
  @MaxLength(254)
  email?: string;

  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(720)
  expires_in_hours?: number;
}

export class FailedJobsQuery {
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(100)
  limit?: number;
}
