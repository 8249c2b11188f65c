import { GatewayError } from '@gateway/common';
import { echoed } from '@gateway/contracts';
import { ValidationError, ValidationPipe } from '@nestjs/common';

/** Global DTO validation (docs/style.md): unknown fields are refused, the first problem is reported with its `param`. */
export function createValidationPipe(): ValidationPipe {
  return new ValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    transform: true,
    stopAtFirstError: true,
    exceptionFactory: (errors) => {
      const { path, message } = firstProblem(errors);
      return new GatewayError('InvalidParameter', message, { param: path });
    },
  });
}

function firstProblem(errors: ValidationError[], parent = ''): { path: string; message: string } {
  const error = errors[0];
  const path = joinPath(parent, echoed(error.property));
  if (error.constraints) {
    const [kind, text] = Object.entries(error.constraints)[0];
    const message =
      kind === 'whitelistValidation' ? `${path} is not a supported parameter` : text.replace(error.property, path);
    return { path, message };
  }
  if (error.children?.length) return firstProblem(error.children, path);
  return { path, message: `${path} is invalid` };
}

function joinPath(parent: string, property: string): string {
  if (!parent) return property;
  return /^\d+$/.test(property) ? `${parent}[${property}]` : `${parent}.${property}`;
}
