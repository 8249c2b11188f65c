import { loadConfig } from './app-config';
import { longestImageCallMs, syncDeadlineMs } from './sync-deadlines';

const MASTER_KEY = 'b'.repeat(64);

describe('syncDeadlineMs', () => {
  it('holds an image edit past its longest upstream call at the defaults, and other calls SYNC_TIMEOUT_MS', () => {
    const config = loadConfig({ MASTER_KEY });
    // A 300 s generation, then 3 download tries of 30 s with two 0.5 s pauses.
    expect(longestImageCallMs(config)).toBe(391_000);
    expect(syncDeadlineMs(config, 'image-edit')).toBeGreaterThan(391_000);
    expect(syncDeadlineMs(config, 'image-edit')).toBe(421_000);
    expect(syncDeadlineMs(config, 'chat')).toBe(300_000);
    expect(syncDeadlineMs(config, 'embeddings')).toBe(300_000);
  });

  it('follows the upstream deadlines, and never waits less than SYNC_TIMEOUT_MS', () => {
    const slow = loadConfig({ MASTER_KEY, UPSTREAM_IMAGE_GENERATION_TIMEOUT_MS: 600_000 });
    expect(syncDeadlineMs(slow, 'image-edit')).toBe(600_000 + 91_000 + 30_000);
    const patient = loadConfig({ MASTER_KEY, SYNC_TIMEOUT_MS: 900_000 });
    expect(syncDeadlineMs(patient, 'image-edit')).toBe(900_000);
  });
});
