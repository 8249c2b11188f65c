/** The code MongoDB (and FerretDB) give a write a unique index refused. */
const DUPLICATE_KEY = 11000;

/**
 * Whether a refused write is a duplicate key: a driver error, or one write's error of a bulk write (whose code may sit
 * on its `err`). Write-once records treat it as "already written".
 */
export function isDuplicateKey(error: unknown): boolean {
  const refused = error as { code?: number; err?: { code?: number } } | undefined;
  return (refused?.code ?? refused?.err?.code) === DUPLICATE_KEY;
}
