// Output geometry of an image edit (docs/contracts.md): the requested size, else the last input's aspect at about 1024×1024.

export interface OutputSize {
  width: number;
  height: number;
}

const TARGET_PIXELS = 1024 * 1024;
const STEP = 16;
/** The bounds a requested `size` must respect; without one, the derived size stays inside them too. */
const MIN_SIDE = 512;
const MAX_SIDE = 2048;

/**
 * Output geometry (docs/contracts.md): with `size`, exactly that; without, the aspect ratio of `last` at about 1024×1024 pixels.
 *
 * Rounding: the ideal sides keep width × height = 1024² at the input's aspect; each is then rounded to the nearest
 * multiple of 16 (what image codecs and upstream models handle best) and clamped to 512–2048, the range `size`
 * accepts. So 4000×3000 → 1184×880 and 200×100 → 1456×720; an aspect beyond 4:1 (e.g. 3000×100) is clamped to
 * 2048×512 and the engine letterboxes the picture inside it. A degenerate `last` (zero side) counts as square.
 */
export function outputGeometry(last: OutputSize, size?: OutputSize): OutputSize {
  if (size) return { width: size.width, height: size.height };
  const aspect = last.width > 0 && last.height > 0 ? last.width / last.height : 1;
  const side = (ideal: number) => Math.min(MAX_SIDE, Math.max(MIN_SIDE, Math.round(ideal / STEP) * STEP));
  return { width: side(Math.sqrt(TARGET_PIXELS * aspect)), height: side(Math.sqrt(TARGET_PIXELS / aspect)) };
}
