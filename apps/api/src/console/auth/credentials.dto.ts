import { IsEmail, IsString, MaxLength, MinLength } from 'class-validator';

export class SignInDto {
  @IsEmail() @MaxLength(254)
  email: string;

  @IsString() @MinLength(10) @MaxLength(200)
  password: string;
}
