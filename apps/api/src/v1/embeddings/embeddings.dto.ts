import {
  IsIn,
  IsInt,
  IsNotEmpty,
  IsOptional,
  IsString,
  MaxLength,
  Min,
  ValidateBy,
  ValidationOptions,
} from 'class-validator';

/** A non-empty string or a non-empty array of strings (OpenAI's `input`). */
function IsTextOrTextArray(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isTextOrTextArray',
      validator: {
        validate: (value: unknown) =>
          (typeof value === 'string' && value.length > 0) ||
          (Array.isArray(value) &&
            value.length > 0 &&
            value.every((item) => typeof item === 'string' && item.length > 0)),
        defaultMessage: () => 'input must be a non-empty string or a non-empty array of non-empty strings',
      },
    },
    options,
  );
}

export class EmbeddingsRequestDto {
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  model: string;

  @IsTextOrTextArray()
  input: string | string[];

  @IsOptional()
  @IsIn(['float', 'base64'])
  encoding_format?: 'float' | 'base64';

  @IsOptional()
  @IsInt()
  @Min(1)
  dimensions?: number;

  @IsOptional()
  @IsString()
  @MaxLength(256)
  user?: string;
}
