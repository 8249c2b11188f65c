const MASTER_KEY_PATTERN = /^[0-9a-f]{64}$/;

/**
 * The master keys, newest first, from MASTER_KEYS (comma-separated) or MASTER_KEY (a list of one). The first seals
 * and signs; every key opens and verifies, so a key can be added before it is used and removed once nothing needs
 * it (README, "Rotating the master key"). Both may be set only when MASTER_KEYS lists MASTER_KEY, so a deployment
 * that adds MASTER_KEYS beside an old MASTER_KEY cannot mean two different things. Keys are lower-cased.
 */
export function readMasterKeys(
  masterKeys: string | undefined,
  masterKey: string | undefined,
): { keys: string[]; problems: string[] } {
  const listed = isSet(masterKeys) ? masterKeys.split(',').map((key) => key.trim().toLowerCase()) : undefined;
  const single = isSet(masterKey) ? masterKey.trim().toLowerCase() : undefined;
  if (!listed) {
    if (single === undefined)
      return { keys: [], problems: ['MASTER_KEYS (or MASTER_KEY) must be set: 64 hex characters per key'] };
    if (MASTER_KEY_PATTERN.test(single)) return { keys: [single], problems: [] };
    return { keys: [], problems: ['MASTER_KEY must be 64 hex characters (32 random bytes)'] };
  }
  const problems: string[] = [];
  listed.forEach((key, index) => {
    if (!MASTER_KEY_PATTERN.test(key))
      problems.push(`MASTER_KEYS must list keys of 64 hex characters (32 random bytes) each; key ${index + 1} is not`);
  });
  if (new Set(listed).size !== listed.length) problems.push('MASTER_KEYS lists a key twice');
  if (single !== undefined && !listed.includes(single))
    problems.push(
      'MASTER_KEY and MASTER_KEYS are both set and MASTER_KEYS does not list MASTER_KEY; remove MASTER_KEY (MASTER_KEYS replaces it)',
    );
  return { keys: problems.length ? [] : listed, problems };
}

function isSet(value: string | undefined): value is string {
  return value !== undefined && value.trim() !== '';
}
