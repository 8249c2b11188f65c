/**
 * BullMQ's moveToActive script (bullmq 5.x, 11 keys) for a worker that queues it behind its marker wait on the
 * blocking connection (apps/worker PromptWorker), where it runs when a job comes, maybe seconds after it was sent.
 * Two additions around BullMQ's own text:
 * - the timestamp (ARGV[2]: the job's processedOn, and which delayed jobs are due) is Redis's clock when it runs;
 * - a job taken from a queue where nothing else waits takes BullMQ's base marker ('0') back, and the answer's fifth
 *   element says so (1). BullMQ sets that marker on every pick-up so that an idle worker looks for more; on a quiet
 *   queue it only sends the worker into one more empty round (a marker wait that returns at once and a moveToActive
 *   that finds nothing). Atomic with the check: a job already waiting keeps the marker, and one added later sets
 *   its own; delayed jobs use marker '1'.
 */
// Not in BullMQ's public exports: the module its Scripts class loads the script from.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { moveToActive } = require('bullmq/dist/cjs/scripts/moveToActive-11') as {
  moveToActive: { content: string; keys: number };
};

/** KEYS of BullMQ's moveToActive used by the additions. */
const WAIT = 'KEYS[1]';
const PRIORITIZED = 'KEYS[3]';
const MARKER = 'KEYS[11]';

export const MOVE_TO_ACTIVE_ON_WAKE = {
  keys: moveToActive.keys,
  lua: `local now = redis.call('TIME')
ARGV[2] = tostring(now[1] * 1000 + math.floor(now[2] / 1000))
local function bullmqMoveToActive()
${moveToActive.content}
end
local fetched = bullmqMoveToActive()
if fetched[1] ~= 0 and redis.call('LLEN', ${WAIT}) == 0 and redis.call('ZCARD', ${PRIORITIZED}) == 0 then
  fetched[5] = redis.call('ZREM', ${MARKER}, '0')
end
return fetched`,
};
