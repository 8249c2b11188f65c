import crypto from 'node:crypto';
// Relative, not @gateway/queue: bench/stages.ts loads this helper without the path aliases.
import { MOVE_TO_ACTIVE_ON_WAKE } from '../../apps/worker/src/tasks/prompt-worker';

const sha1 = (text: string) => crypto.createHash('sha1').update(text).digest('hex');

/**
 * SHA-1 → name of each of BullMQ's Lua scripts: what Redis MONITOR shows its EVALSHA calls by. The workers' variant
 * of moveToActive that runs behind a marker wait (MOVE_TO_ACTIVE_ON_WAKE) is `onWake:moveToActive`.
 */
export function bullmqScriptNames(): Map<string, string> {
  // Not in BullMQ's public exports; the same module its Scripts class loads.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const scripts = require('bullmq/dist/cjs/scripts') as Record<string, { name: string; content: string }>;
  const names = new Map<string, string>();
  for (const script of Object.values(scripts)) names.set(sha1(script.content), script.name);
  names.set(sha1(MOVE_TO_ACTIVE_ON_WAKE.lua), 'onWake:moveToActive');
  return names;
}

/** The SHA-1 of the BullMQ script whose name starts with `name` (names carry their key count: moveToActive-11). */
export function bullmqScriptSha(name: string): string {
  for (const [sha, scriptName] of bullmqScriptNames()) if (scriptName.startsWith(name)) return sha;
  throw new Error(`no BullMQ script named ${name}`);
}
