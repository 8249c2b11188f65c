/** A timeout as it reads in an error message: whole seconds as "15 s", anything else as "300 ms". */
export function formatDuration(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}
