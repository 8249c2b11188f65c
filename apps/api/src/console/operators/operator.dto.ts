import { BUDGET_PERIODS, BudgetPeriod } from '@gateway/contracts';
import { Type } from 'class-transformer';
import {
  IsBoolean,
  IsEmail,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
  ValidateNested,
} from 'class-validator';
import { FollowsRule } from '../applications/application.dto';

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

  /** What all of the account's applications may spend per period, as an exact decimal; "" or "0" sets none. */
  @IsOptional()
  @FollowsRule('budget_amount')
  budget_amount?: string | null;

  /** The budget's period, `month` when left out. */
  @IsOptional()
  @IsIn(BUDGET_PERIODS)
  budget_period?: BudgetPeriod;
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

export class ApplicationPageQuery {
  /** The `next` of the previous page. */
  @IsOptional()
  @IsString()
  @MaxLength(100)
  cursor?: string;

  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(200)
  limit?: number;
}

export class UsageRangeQuery {
  /** First UTC day, YYYY-MM-DD (default: 29 days before `to`). */
  @IsOptional()
  @Matches(/^\d{4}-\d{2}-\d{2}$/)
  from?: string;

  /** Last UTC day, YYYY-MM-DD (default: today). */
  @IsOptional()
  @Matches(/^\d{4}-\d{2}-\d{2}$/)
  to?: string;
}
