import type { EnvSource } from './app-config';

/**
 * Settings that have a new name, by former name. A deployment that still sets the former name keeps its behaviour
 * (and, for REDIS_PREFIX, finds its data in Redis) until it renames the setting.
 */
const RENAMED_SETTINGS: Record<string, string> = { QUEUE_PREFIX: 'REDIS_PREFIX' };

/** `source` with each former name read as its new one where that is unset, and one warning per former name found. */
export function readRenamedSettings(source: EnvSource): { source: EnvSource; warnings: string[] } {
  const renamed = { ...source };
  const warnings: string[] = [];
  for (const [former, current] of Object.entries(RENAMED_SETTINGS)) {
    if (!isSet(source[former])) continue;
    if (isSet(source[current])) {
      warnings.push(`${former} is ignored because ${current} is set; remove ${former}`);
    } else {
      renamed[current] = source[former];
      warnings.push(`${former} is deprecated; rename it to ${current} (same value, same meaning)`);
    }
    delete renamed[former];
  }
  return { source: renamed, warnings };
}

function isSet(value: EnvSource[string]): boolean {
  return value !== undefined && value !== '';
}
