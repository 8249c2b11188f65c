import { IsDefined, IsIn, IsInt, IsNotEmpty, IsOptional, IsString, MaxLength, Min } from 'class-validator';

export class EmbeddingsRequestDto {
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  model: string;

  /** OpenAI's four shapes, checked where the catalog's limits are known, naming the exact place (embedding-inputs.ts). */
  @IsDefined({ message: 'input is required' })
  input: unknown;

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
