/**
 * A deterministic feature-hashing embedder: word unigrams, word bigrams and character trigrams hashed
 * (FNV-1a, signed) into `dimensions` buckets, then L2-normalised. Texts sharing words and spellings land near each
 * other; it knows nothing of meaning. It runs anywhere with no model files, which makes it the documented fallback.
 */
export function hashEmbedding(text: string, dimensions: number): number[] {
  const vector = new Float64Array(dimensions);
  const words = hashWords(text);
  for (let i = 0; i < words.length; i++) {
    add(vector, `w:${words[i]}`, 1);
    if (i > 0) add(vector, `b:${words[i - 1]} ${words[i]}`, 0.5);
    const padded = ` ${words[i]} `;
    for (let j = 0; j + 3 <= padded.length; j++) add(vector, `c:${padded.slice(j, j + 3)}`, 0.25);
  }
  let norm = 0;
  for (const value of vector) norm += value * value;
  norm = Math.sqrt(norm) || 1;
  return Array.from(vector, (value) => value / norm);
}

/**
 * The embedder's features' words, which are its tokens (its usage counts them, at least one a text): lower-case
 * words, each CJK character a word of its own.
 */
export function hashWords(text: string): string[] {
  return text.toLowerCase().match(/[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]|[\p{L}\p{N}]+/gu) ?? [];
}

function add(vector: Float64Array, feature: string, weight: number): void {
  const hash = fnv1a(feature);
  vector[hash % vector.length] += hash & 0x80000000 ? -weight : weight;
}

function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}
