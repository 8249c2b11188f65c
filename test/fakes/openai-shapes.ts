import { OPENAI_ANSWER_FIELDS, OPENAI_CHARS_PER_TOKEN } from './upstream-rules';

/** An answer object, checked against OPENAI_ANSWER_FIELDS so the fake never sends an undocumented field. */
export function documented<T extends object>(kind: keyof typeof OPENAI_ANSWER_FIELDS, value: T): T {
  const allowed: readonly string[] = OPENAI_ANSWER_FIELDS[kind];
  const extra = Object.keys(value).filter((key) => !allowed.includes(key));
  if (extra.length) throw new Error(`undocumented ${kind} field(s): ${extra.join(', ')}`);
  return value;
}

/** OPENAI_CHARS_PER_TOKEN: how the fake counts the tokens of a text. */
export function tokensOf(text: string): number {
  return Math.ceil(text.length / OPENAI_CHARS_PER_TOKEN);
}

/** The text cut into the fake's tokens: OPENAI_CHARS_PER_TOKEN code points each, the last one shorter. */
export function tokenPieces(text: string): string[] {
  const points = Array.from(text);
  const pieces: string[] = [];
  for (let i = 0; i < points.length; i += OPENAI_CHARS_PER_TOKEN) {
    pieces.push(points.slice(i, i + OPENAI_CHARS_PER_TOKEN).join(''));
  }
  return pieces;
}
