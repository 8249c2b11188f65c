import { newId, randomBase62 } from './ids';

describe('ids', () => {
  it('are prefix_ plus 22 base62 characters and do not repeat', () => {
    const ids = Array.from({ length: 20_000 }, () => newId('task'));
    ids.forEach((id) => expect(id).toMatch(/^task_[0-9A-Za-z]{22}$/));
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('spread evenly over the alphabet', () => {
    const counts = new Map<string, number>();
    for (const ch of randomBase62(62_000)) counts.set(ch, (counts.get(ch) ?? 0) + 1);
    expect(counts.size).toBe(62);
    for (const count of counts.values()) expect(Math.abs(count - 1000)).toBeLessThan(200);
  });
});
