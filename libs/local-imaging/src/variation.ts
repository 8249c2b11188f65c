// How seed and variation show in the pixels. Variation 0 gets only a seeded tone curve too slight to see; variations
// 1…n-1 are visibly different takes (tone, warmth, saturation, hue) applied to the inputs before the instruction's
// own edits, so "black and white" still ends with R = G = B.
import { Raster, transform } from '@gateway/imaging';
import { Random, signedBetween } from './seeded-random';

export interface VariationTweak {
  saturation: number;
  hue: number;
  /** Per-channel gain (R, G, B): overall exposure times a warm or cool tint. */
  gains: [number, number, number];
  /** Added to every channel alike, so even pure black changes. */
  lift: number;
}

export function variationTweak(random: Random, variation: number): VariationTweak | undefined {
  if (variation === 0) return undefined;
  const gain = 1 + signedBetween(random, 0.05, 0.12);
  const warmth = signedBetween(random, 0.02, 0.06);
  return {
    saturation: 1 + signedBetween(random, 0.1, 0.25),
    hue: Math.round(signedBetween(random, 5, 15)),
    gains: [gain * (1 + warmth), gain, gain * (1 - warmth)],
    lift: Math.round(signedBetween(random, 3, 8)),
  };
}

export function applyVariationTweak(image: Raster, tweak: VariationTweak): Promise<Raster> {
  // One pipeline: libvips picks the order of the two, the same order every time.
  const lift = [tweak.lift, tweak.lift, tweak.lift];
  return transform(image, (pipeline) =>
    pipeline.modulate({ saturation: tweak.saturation, hue: tweak.hue }).linear(tweak.gains, lift),
  );
}

/**
 * A gamma within ±1.5 % chosen by the seed: mid-tones move by a level or so, pure black and white stay put, and
 * R, G and B share one curve, so equal channels stay equal.
 */
export function seededToneCurve(random: Random): Uint8Array {
  const gamma = 1 + (random() - 0.5) * 0.03;
  return Uint8Array.from({ length: 256 }, (_, level) => Math.round(255 * Math.pow(level / 255, gamma)));
}

export function applyToneCurve(image: Raster, curve: Uint8Array): Raster {
  const data = Buffer.from(image.data);
  for (let offset = 0; offset < data.length; offset += 4) {
    data[offset] = curve[data[offset]];
    data[offset + 1] = curve[data[offset + 1]];
    data[offset + 2] = curve[data[offset + 2]];
  }
  return { data, width: image.width, height: image.height };
}
