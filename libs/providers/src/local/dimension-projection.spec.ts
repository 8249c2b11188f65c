import { DimensionProjection } from './dimension-projection';

function unit(values: number[]): number[] {
  const norm = Math.hypot(...values);
  return values.map((x) => x / norm);
}

function randomUnit(length: number, seed: number): number[] {
  let state = seed;
  return unit(Array.from({ length }, () => (state = (state * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff - 0.5));
}

const cosine = (a: number[], b: number[]) => a.reduce((sum, x, i) => sum + x * b[i], 0);

describe('DimensionProjection', () => {
  const projection = new DimensionProjection(384);
  const vectors = Array.from({ length: 12 }, (_, i) => randomUnit(384, i + 1));

  it('keeps cosines exactly when growing to more dimensions', () => {
    for (const dimensions of [512, 1024, 2048]) {
      const projected = vectors.map((v) => projection.project(v, dimensions));
      expect(projected[0]).toHaveLength(dimensions);
      for (let i = 1; i < vectors.length; i++)
        expect(cosine(projected[0], projected[i])).toBeCloseTo(cosine(vectors[0], vectors[i]), 9);
    }
  });

  it('keeps cosines close when shrinking, closer than keeping the first components', () => {
    const similar = unit(vectors[0].map((x, i) => x + 0.6 * vectors[1][i]));
    const pairs: [number[], number[]][] = [
      [vectors[0], similar],
      [vectors[0], vectors[2]],
      [similar, vectors[3]],
    ];
    for (const dimensions of [256, 128]) {
      for (const [a, b] of pairs) {
        const projected = cosine(projection.project(a, dimensions), projection.project(b, dimensions));
        expect(Math.abs(projected - cosine(a, b))).toBeLessThan(dimensions >= 256 ? 0.12 : 0.2);
      }
    }
    // The ordering that matters for retrieval survives even at 64 dimensions.
    const near = cosine(projection.project(vectors[0], 64), projection.project(similar, 64));
    const far = cosine(projection.project(vectors[0], 64), projection.project(vectors[2], 64));
    expect(near).toBeGreaterThan(far);
  });

  it('returns unit vectors, the same ones every time, and the input at the native size', () => {
    const once = projection.project(vectors[5], 768);
    expect(Math.hypot(...once)).toBeCloseTo(1, 9);
    expect(new DimensionProjection(384).project(vectors[5], 768)).toEqual(once);
    expect(projection.project(vectors[5], 384)).toEqual(vectors[5]);
  });
});
