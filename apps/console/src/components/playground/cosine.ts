/** Cosine similarity of every pair of vectors: 1 on the diagonal, symmetric. */
export function cosineMatrix(vectors: number[][]): number[][] {
  const norms = vectors.map((vector) => Math.sqrt(dot(vector, vector)));
  return vectors.map((a, i) => vectors.map((b, j) => (norms[i] && norms[j] ? dot(a, b) / (norms[i] * norms[j]) : 0)));
}

function dot(a: number[], b: number[]): number {
  let sum = 0;
  for (let index = 0; index < Math.min(a.length, b.length); index++) sum += a[index] * b[index];
  return sum;
}
