// A small seeded PRNG: every "random" choice of the engine comes from here, so a seed replays exactly.

export type Random = () => number;

/** mulberry32: a 32-bit unsigned output per call, the sequence fixed by `seed`. */
export function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  };
}

/** mulberry32 over a state mixed from seed and variation: same pair, same sequence; neighbouring pairs diverge at once. */
export function seededRandom(seed: number, variation: number): Random {
  const next = mulberry32(Math.imul(seed >>> 0, 0x9e3779b1) ^ Math.imul((variation >>> 0) + 1, 0x85ebca77));
  return () => next() / 4294967296;
}

/** A value of random sign whose size lies in [min, max). */
export function signedBetween(random: Random, min: number, max: number): number {
  const sign = random() < 0.5 ? -1 : 1;
  return sign * (min + random() * (max - min));
}
