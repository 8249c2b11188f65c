import { GatewayError } from '@gateway/common';
import { ZxcvbnFactory, type ZxcvbnResult } from '@zxcvbn-ts/core';
import { adjacencyGraphs, dictionary } from '@zxcvbn-ts/language-common';

/**
 * zxcvbn's score of a new password must reach 3: "safely unguessable", about 10^8 guesses or more
 * (docs/contracts.md#console-sign-in-and-sign-up). Passwords set before this rule keep signing in; it applies to new ones only.
 */
export const MIN_PASSWORD_SCORE = 3;

/** Why zxcvbn found a password guessable, by its warning key (the English wording of @zxcvbn-ts/language-en). */
const WARNINGS: Record<string, string> = {
  straightRow: 'it is a straight row of keys on a keyboard',
  keyPattern: 'it is a short keyboard pattern',
  simpleRepeat: 'it repeats characters like "aaa"',
  extendedRepeat: 'it repeats a group of characters like "abcabcabc"',
  sequences: 'it is a common sequence like "abc" or "123"',
  recentYears: 'it is or contains a recent year',
  dates: 'it is or contains a date',
  topTen: 'it is one of the most common passwords (top 10)',
  topHundred: 'it is one of the most common passwords (top 100)',
  common: 'it is one of the most common passwords',
  similarToCommon: 'it is similar to one of the most common passwords',
  wordByItself: 'it is a single word',
  namesByThemselves: 'it is a name or surname',
  commonNames: 'it is a common name or surname',
  userInputs: 'it contains your email',
  pwned: 'it appeared in a data breach',
};

/** Built on first use: loading the dictionaries and a first check took 97 ms here, and only sign-ups need them. */
let estimator: ZxcvbnFactory | undefined;

function estimate(password: string, email: string): ZxcvbnResult {
  estimator ??= new ZxcvbnFactory({ dictionary, graphs: adjacencyGraphs });
  return estimator.check(password, [email, email.split('@')[0]]);
}

/**
 * A new password (sign-up, and any future password change) must be hard to guess by zxcvbn's estimate and must not
 * be the account's email; length is checked by the request's DTO. The refusal says why and how strong it was.
 */
export function checkNewPassword(password: string, email: string): void {
  const lowered = password.toLowerCase();
  const normalized = email.toLowerCase();
  if (lowered === normalized || lowered === normalized.split('@')[0]) {
    throw new GatewayError('WeakPassword', 'the password must not be your email', { param: 'password' });
  }
  const { score, feedback } = estimate(password, normalized);
  if (score >= MIN_PASSWORD_SCORE) return;
  const why = (feedback.warning && WARNINGS[feedback.warning]) || 'it is short or predictable';
  throw new GatewayError(
    'WeakPassword',
    `this password is too easy to guess: ${why} (strength ${score} of 4, ${MIN_PASSWORD_SCORE} needed); add words or characters that do not follow a pattern`,
    { param: 'password' },
  );
}
