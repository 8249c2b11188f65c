/**
 * BullMQ's moveToActive script (bullmq 5.x, 11 keys), taking its timestamp (ARGV[2]: the job's processedOn, and
 * which delayed jobs are due) from Redis's clock when it runs. A worker queues it behind its marker wait on the
 * blocking connection (apps/worker PromptWorker), where it runs when a job comes, maybe seconds after it was sent.
 */
// Not in BullMQ's public exports: the module its Scripts class loads the script from.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { moveToActive } = require('bullmq/dist/cjs/scripts/moveToActive-11') as {
  moveToActive: { content: string; keys: number };
};

export const MOVE_TO_ACTIVE_ON_WAKE = {
  keys: moveToActive.keys,
  lua: `local now = redis.call('TIME')
ARGV[2] = tostring(now[1] * 1000 + math.floor(now[2] / 1000))
${moveToActive.content}`,
};
