import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsNotEmpty,
  IsNumber,
  IsOptional,
  IsString,
  Max,
  MaxLength,
  Min,
  ValidateBy,
  ValidateNested,
} from 'class-validator';

export class ChatMessageDto {
  @IsIn(['system', 'user', 'assistant'])
  role: 'system' | 'user' | 'assistant';

  @IsString()
  @MaxLength(1_000_000)
  content: string;

  @IsOptional()
  @IsString()
  @MaxLength(64)
  name?: string;
}

export class StreamOptionsDto {
  @IsOptional()
  @IsBoolean()
  include_usage?: boolean;
}

/** A string or up to four strings, as OpenAI's `stop`. */
function IsStop(): PropertyDecorator {
  return ValidateBy({
    name: 'isStop',
    validator: {
      validate: (value: unknown) =>
        (typeof value === 'string' && value.length <= 256) ||
        (Array.isArray(value) && value.length <= 4 && value.every((s) => typeof s === 'string' && s.length <= 256)),
      defaultMessage: () => 'stop must be a string or an array of at most 4 strings',
    },
  });
}

/**
 * A number in `interval`, written as the upstreams' docs write it: `[0, 2)` takes 0 and stops short of 2. The
 * message names the range, so a caller sees it before an upstream refuses the value.
 */
function IsInInterval(interval: string): PropertyDecorator {
  const parts = /^([[(])(-?[\d.]+), (-?[\d.]+)([\])])$/.exec(interval);
  if (!parts) throw new Error(`not an interval: ${interval}`);
  const [, open, low, high, close] = parts;
  const [min, max] = [Number(low), Number(high)];
  const lower = open === '[' ? `at least ${min}` : `greater than ${min}`;
  const upper = close === ']' ? `at most ${max}` : `less than ${max}`;
  return ValidateBy({
    name: 'isInInterval',
    validator: {
      validate: (value: unknown) =>
        typeof value === 'number' &&
        (open === '[' ? value >= min : value > min) &&
        (close === ']' ? value <= max : value < max),
      defaultMessage: (args) => `${args?.property} must be in ${interval}: ${lower} and ${upper}`,
    },
  });
}

/** The OpenAI-compatible subset of docs/contracts.md; any other field is refused. */
export class ChatCompletionRequestDto {
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  model: string;

  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(1000)
  @ValidateNested({ each: true })
  @Type(() => ChatMessageDto)
  messages: ChatMessageDto[];

  @IsOptional()
  @IsInt()
  @Min(1)
  max_tokens?: number;

  // What every x-chat route takes: OpenAI allows temperature 0–2 and top_p 0–1, DashScope's compatible mode (qwen)
  // [0, 2) and (0, 1]. Past the narrower one a fallback route would answer an upstream 400.
  @IsOptional()
  @IsNumber()
  @IsInInterval('[0, 2)')
  temperature?: number;

  @IsOptional()
  @IsNumber()
  @IsInInterval('(0, 1]')
  top_p?: number;

  @IsOptional()
  @IsStop()
  stop?: string | string[];

  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(2 ** 53 - 1)
  seed?: number;

  @IsOptional()
  @IsBoolean()
  stream?: boolean;

  @IsOptional()
  @ValidateNested()
  @Type(() => StreamOptionsDto)
  stream_options?: StreamOptionsDto;

  @IsOptional()
  @IsString()
  @MaxLength(256)
  user?: string;
}
