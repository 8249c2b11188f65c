import { IsEmail, IsOptional, IsString, MaxLength, MinLength } from 'class-validator';

export class SignInDto {
  @IsEmail()
  @MaxLength(254)
  email: string;

  @IsString()
  @MinLength(10)
  @MaxLength(200)
  password: string;
}

export class RegisterDto extends SignInDto {
  /** An operator's invitation: needed when CONSOLE_SIGNUP is `invite`. */
  @IsOptional()
  @IsString()
  @MaxLength(100)
  invitation?: string;
}
