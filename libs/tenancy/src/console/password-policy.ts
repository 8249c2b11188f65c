import { GatewayError } from '@gateway/common';
import { dictionary } from '@zxcvbn-ts/language-common';

/** 49,000 most common passwords from leaked sets (zxcvbn-ts's list), lower-cased; loaded on first use. */
let common: Set<string> | undefined;

/**
 * A new password must not be a common one nor the account's email (length is checked by the request's DTO): the
 * first thing a credential-stuffing run tries.
 */
export function checkNewPassword(password: string, email: string): void {
  common ??= new Set(dictionary['passwords-common'].map((entry) => entry.toLowerCase()));
  const lowered = password.toLowerCase();
  if (common.has(lowered)) {
    throw new GatewayError('WeakPassword', 'this password is one of the most common ones; choose another', {
      param: 'password',
    });
  }
  if (lowered === email.toLowerCase() || lowered === email.toLowerCase().split('@')[0]) {
    throw new GatewayError('WeakPassword', 'the password must not be your email', { param: 'password' });
  }
}
