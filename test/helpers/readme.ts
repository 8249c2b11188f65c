/**
 * Runs a ```js block of the README as the CommonJS file a reader pastes it into, and returns the function `name`
 * it defines.
 */
export function evaluateSnippet<F>(snippet: string, name: string): F {
  // eslint-disable-next-line @typescript-eslint/no-implied-eval -- the code under test is README text, run as a reader would run it
  return new Function('require', `${snippet}; return ${name};`)(require) as F;
}
