import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsBoolean,
  IsInt,
  IsNotEmpty,
  IsObject,
  IsOptional,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
  ValidateNested,
} from 'class-validator';

/** A content item carries an image or a text; which one, and how many of each, ImageEditRequestService checks. */
export class ImageEditContentDto {
  /** An http(s) URL or base64 / data URI of at most 10 MB, a BMP 30 MB (41.9 M base64 characters). */
  @IsOptional()
  @IsString()
  @MaxLength(42_000_000)
  image?: string;

  /** Longer texts are cut to 800 code points, not refused (docs/contracts.md); this only bounds the work. */
  @IsOptional()
  @IsString()
  @MaxLength(100_000)
  text?: string;
}

export class ImageEditMessageDto {
  @IsString()
  role: string;

  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(16)
  @ValidateNested({ each: true })
  @Type(() => ImageEditContentDto)
  content: ImageEditContentDto[];
}

export class ImageEditInputDto {
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(16)
  @ValidateNested({ each: true })
  @Type(() => ImageEditMessageDto)
  messages: ImageEditMessageDto[];
}

export class ImageEditParametersDto {
  @IsOptional()
  @IsInt()
  @Min(1)
  n?: number;

  @IsOptional()
  @IsString()
  @MaxLength(100_000)
  negative_prompt?: string;

  @IsOptional()
  @IsString()
  @Matches(/^\d{1,5}\*\d{1,5}$/, { message: 'size must be written <width>*<height>, e.g. 1024*768' })
  size?: string;

  @IsOptional()
  @IsBoolean()
  prompt_extend?: boolean;

  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(2147483647)
  seed?: number;

  @IsOptional()
  @IsBoolean()
  watermark?: boolean;
}

/** Body of POST /v1/images/edits (spec "Image edit request"); any other field is refused. */
export class ImageEditRequestDto {
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  model: string;

  @IsObject()
  @ValidateNested()
  @Type(() => ImageEditInputDto)
  input: ImageEditInputDto;

  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => ImageEditParametersDto)
  parameters?: ImageEditParametersDto;
}
