import { IsDefined, IsIn, IsInt, IsNotEmpty, IsOptional, IsString, MaxLength, Min } from 'class-validator';
import { JSONSchema } from 'class-validator-jsonschema';
import { OPENAI_MAX_INPUTS } from './embedding-inputs';

const TEXT = { type: 'string', minLength: 1 } as const;
const TOKENS = { type: 'array', items: { type: 'integer', minimum: 0 }, minItems: 1 } as const;

export class EmbeddingsRequestDto {
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  model: string;

  /** OpenAI's four shapes, checked where the catalog's limits are known, naming the exact place (embedding-inputs.ts). */
  @IsDefined({ message: 'input is required' })
  @JSONSchema({
    description: "A text, a list of texts, a text's token ids or a list of those; the model's limits apply to each.",
    anyOf: [
      TEXT,
      { type: 'array', items: TEXT, minItems: 1, maxItems: OPENAI_MAX_INPUTS },
      TOKENS,
      { type: 'array', items: TOKENS, minItems: 1, maxItems: OPENAI_MAX_INPUTS },
    ],
  })
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
