import { JsonDepthScan } from './json-depth-scan';

/** Feeds `text` in chunks of `size` bytes; true when it stays within the limit. */
function withinLimit(text: string, size = text.length): boolean {
  const bytes = Buffer.from(text);
  const scan = new JsonDepthScan();
  for (let at = 0; at < bytes.length; at += size) if (!scan.feed(bytes.subarray(at, at + size))) return false;
  return true;
}

describe('JsonDepthScan', () => {
  const nested = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);

  it('takes 64 levels and refuses the 65th', () => {
    expect(withinLimit(nested(64))).toBe(true);
    expect(withinLimit(nested(65))).toBe(false);
  });

  it('counts depth, not brackets: siblings at one level do not add up', () => {
    expect(withinLimit(`[${'{"a":[1]},'.repeat(10_000)}0]`)).toBe(true);
  });

  it('ignores brackets inside strings, escaped quotes included, whatever the chunk boundaries', () => {
    const text = JSON.stringify({ s: `\\"${'['.repeat(100)}\\\\`, t: '"{{{{'.repeat(100) });
    for (const size of [1, 2, 3, 7, text.length]) expect(withinLimit(text, size)).toBe(true);
    const deepAfterString = `["\\\\", ${nested(65)}]`;
    for (const size of [1, 2, 3, 5]) expect(withinLimit(deepAfterString, size)).toBe(false);
  });
});
