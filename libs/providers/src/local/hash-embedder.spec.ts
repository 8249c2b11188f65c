import { hashEmbedding, hashWords } from './hash-embedder';

const cosine = (a: number[], b: number[]) => a.reduce((s, x, i) => s + x * b[i], 0);

describe('hash embedder', () => {
  it('is deterministic and unit length at the asked dimensions', () => {
    const a = hashEmbedding('The quick brown fox', 256);
    expect(a).toHaveLength(256);
    expect(hashEmbedding('The quick brown fox', 256)).toEqual(a);
    expect(Math.hypot(...a)).toBeCloseTo(1, 10);
  });

  it('puts texts sharing words closer than unrelated texts', () => {
    const base = hashEmbedding('the cat sat on the mat', 1024);
    expect(cosine(base, hashEmbedding('a cat sat on a mat', 1024))).toBeGreaterThan(
      cosine(base, hashEmbedding('stock markets fell sharply', 1024)),
    );
  });

  it('takes lower-case words as its features, each CJK character a word of its own', () => {
    expect(hashWords('Hello 你好 world')).toEqual(['hello', '你', '好', 'world']);
  });
});
