import { mulberry32 } from '@gateway/local-imaging';

/**
 * Vectors of a model's native size at any other size the catalog offers, for embedding models that are not
 * Matryoshka-trained (whose leading components are not a smaller embedding, so truncation would be poor).
 *
 * The projection is a fixed matrix with orthonormal rows or columns, drawn once from a seeded Gaussian:
 * - to more dimensions (e.g. 384 → 1024), its columns are orthonormal, so dot products and cosines are preserved
 *   exactly: the longer vector carries the same information;
 * - to fewer dimensions (384 → 64), its rows are orthonormal, a random projection that keeps cosines close
 *   (Johnson–Lindenstrauss) and is far better than keeping the first components.
 * Seeded, so every worker, run and restart produces the same vectors for the same text.
 */
export class DimensionProjection {
  private readonly matrices = new Map<number, Float64Array>();

  constructor(
    private readonly native: number,
    private readonly seed = 0x5eed,
  ) {}

  /** `vector` (native size, unit length) at `dimensions`, unit length. */
  project(vector: readonly number[], dimensions: number): number[] {
    if (vector.length !== this.native) throw new Error(`expected ${this.native} components, got ${vector.length}`);
    if (dimensions === this.native) return [...vector];
    const matrix = this.matrixFor(dimensions);
    const out = new Array<number>(dimensions);
    for (let row = 0; row < dimensions; row++) {
      let sum = 0;
      const offset = row * this.native;
      for (let col = 0; col < this.native; col++) sum += matrix[offset + col] * vector[col];
      out[row] = sum;
    }
    return normalise(out);
  }

  /** Row-major dimensions × native matrix, made once per size. */
  private matrixFor(dimensions: number): Float64Array {
    let matrix = this.matrices.get(dimensions);
    if (!matrix) {
      matrix = orthonormalMatrix(dimensions, this.native, this.seed + dimensions);
      this.matrices.set(dimensions, matrix);
    }
    return matrix;
  }
}

/** A rows × cols Gaussian matrix whose shorter side is orthonormalised (modified Gram–Schmidt). */
function orthonormalMatrix(rows: number, cols: number, seed: number): Float64Array {
  const random = gaussian(seed);
  const m = new Float64Array(rows * cols);
  for (let i = 0; i < m.length; i++) m[i] = random();
  // Orthonormalise the vectors along the shorter side: columns when growing, rows when shrinking.
  const [count, length, at] =
    rows >= cols
      ? [cols, rows, (v: number, k: number) => k * cols + v]
      : [rows, cols, (v: number, k: number) => v * cols + k];
  for (let v = 0; v < count; v++) {
    for (let u = 0; u < v; u++) {
      let dot = 0;
      for (let k = 0; k < length; k++) dot += m[at(v, k)] * m[at(u, k)];
      for (let k = 0; k < length; k++) m[at(v, k)] -= dot * m[at(u, k)];
    }
    let norm = 0;
    for (let k = 0; k < length; k++) norm += m[at(v, k)] ** 2;
    norm = Math.sqrt(norm) || 1;
    for (let k = 0; k < length; k++) m[at(v, k)] /= norm;
  }
  return m;
}

/** Standard normal draws from a seeded mulberry32 (Box–Muller). */
function gaussian(seed: number): () => number {
  const next = mulberry32(seed);
  // Never 0, so the logarithm stays finite.
  const uniform = () => (next() + 1) / 4294967297;
  return () => Math.sqrt(-2 * Math.log(uniform())) * Math.cos(2 * Math.PI * uniform());
}

function normalise(vector: number[]): number[] {
  const norm = Math.sqrt(vector.reduce((sum, x) => sum + x * x, 0)) || 1;
  return vector.map((x) => x / norm);
}
