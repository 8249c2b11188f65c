import crypto from 'node:crypto';

/** SHA-1 → name of each of BullMQ's Lua scripts: what Redis MONITOR shows its EVALSHA calls by. */
export function bullmqScriptNames(): Map<string, string> {
  // Not in BullMQ's public exports; the same module its Scripts class loads.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const scripts = require('bullmq/dist/cjs/scripts') as Record<string, { name: string; content: string }>;
  const names = new Map<string, string>();
  for (const script of Object.values(scripts))
    names.set(crypto.createHash('sha1').update(script.content).digest('hex'), script.name);
  return names;
}

/** The SHA-1 of the BullMQ script whose name starts with `name` (names carry their key count: moveToActive-11). */
export function bullmqScriptSha(name: string): string {
  for (const [sha, scriptName] of bullmqScriptNames()) if (scriptName.startsWith(name)) return sha;
  throw new Error(`no BullMQ script named ${name}`);
}
