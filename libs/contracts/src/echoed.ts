/** Longest part of a caller's own text an error message repeats (an unknown key, an IP entry). */
export const ECHO_MAX_CHARS = 100;

/** The caller's text as a message repeats it: cut, so a 3 MB key is not answered with a 6 MB error. */
export function echoed(text: string): string {
  return text.length > ECHO_MAX_CHARS ? `${text.slice(0, ECHO_MAX_CHARS)}…` : text;
}
