import { createHash } from 'node:crypto';
import { RedisKeys, routeSemaphore } from './redis-keys';

const keys = new RedisKeys('gw');
const APP = 'app_7dL2q9ZxW1pR4nV8sK3mTb';
const TASK = 'task_7dL2q9ZxW1pR4nV8sK3mTb';

describe('RedisKeys', () => {
  it('names the reply channel, outcome and stream keys of docs/contracts.md', () => {
    expect(keys.replyChannel('inst_1')).toBe('gw:reply:inst_1');
    expect(keys.outcome(TASK)).toBe(`gw:outcome:${TASK}`);
    expect(keys.taskStream(TASK)).toBe(`gw:stream:${TASK}`);
    expect(keys.streamCancel(TASK)).toBe(`gw:stream-cancel:${TASK}`);
  });

  it("keeps an Idempotency-Key as the base64url SHA-256 of the caller's key", () => {
    const hashed = createHash('sha256').update('order 42').digest('base64url');
    expect(keys.idempotency(APP, 'order 42')).toBe(`gw:idem:${APP}:${hashed}`);
  });

  it('puts every limit key of an application under its hash tag', () => {
    const at = new Date('2025-12-20T10:15:32.120Z');
    expect(keys.dailyCalls(APP, at)).toBe(`gw:lim:{${APP}}:day:2025-12-20`);
    expect(keys.minuteRequests(APP, at)).toBe(`gw:lim:{${APP}}:rpm:29437095`);
    expect(keys.concurrencyLeases(APP)).toBe(`gw:lim:{${APP}}:conc`);
    expect(keys.tokenUsage(APP)).toBe(`gw:lim:{${APP}}:tokens`);
    expect(keys.budgetSpent(APP, 'day:2026-11-26')).toBe(`gw:lim:{${APP}}:budget:day:2026-11-26`);
    expect(keys.ownerBudgetSpent('usr_1', 'month:2026-11')).toBe('gw:lim:{user:usr_1}:budget:month:2026-11');
    expect(keys.nonce(APP, 'n0nce-123')).toBe(`gw:nonce:{${APP}}:n0nce-123`);
    expect(keys.refusedCalls(APP)).toBe(`gw:refused:{${APP}}`);
    expect(keys.refusedCallCount(APP)).toBe(`gw:refused-count:{${APP}}`);
  });

  it('names route slots and pacing, feed counters and BullMQ keys', () => {
    expect(keys.semaphore(routeSemaphore('openai:x-chat'))).toBe('gw:sem:route:openai:x-chat');
    expect(keys.routePace('dashscope:qwen-image-edit')).toBe('gw:pace:route:dashscope:qwen-image-edit');
    expect(keys.feedCounter('tasks', APP, '2025-12-20')).toBe(`gw:feed:tasks:${APP}:2025-12-20`);
    expect(keys.bullmq('embeddings', 'wait')).toBe('gw:embeddings:wait');
  });

  it('names the record stream and the usage ledger', () => {
    expect(keys.recordStream()).toBe('gw:records');
    expect(keys.filedRecord(TASK)).toBe(`gw:record:${TASK}`);
    expect(keys.legacyPendingRecords()).toBe('gw:records:pending');
    expect(keys.legacyRecordsDue()).toBe('gw:records:due');
    expect(keys.usagePending()).toBe('gw:usage:pending');
    expect(keys.usageFolding()).toBe('gw:usage:folding');
    expect(keys.usageFoldId()).toBe('gw:usage:fold-id');
    expect(keys.usageFoldLease()).toBe('gw:usage:fold-lease');
  });

  it('keeps console sessions under the SHA-256 hex of their token', () => {
    const hashed = createHash('sha256').update('token').digest('hex');
    expect(keys.consoleSession('token')).toBe(`gw:session:${hashed}`);
    expect(keys.loginFailures('ops@example.com')).toBe('gw:login-failures:ops@example.com');
    expect(keys.loginFailuresFrom('203.0.113.9')).toBe('gw:login-failures-from:203.0.113.9');
    expect(keys.loginFailuresPair('ops@example.com', '203.0.113.9')).toBe(
      'gw:login-failures-pair:203.0.113.9:ops@example.com',
    );
    expect(keys.loginDelayUntil('ops@example.com')).toBe('gw:login-delay:ops@example.com');
    expect(keys.loginKnownAddress('ops@example.com', '203.0.113.9')).toBe('gw:login-known:203.0.113.9:ops@example.com');
    expect(keys.apiKeyFailuresFrom('203.0.113.9')).toBe('gw:api-key-failures-from:203.0.113.9');
  });

  it('starts every key with the configured prefix', () => {
    expect(new RedisKeys('tenant-b').outcome(TASK)).toBe(`tenant-b:outcome:${TASK}`);
  });
});
