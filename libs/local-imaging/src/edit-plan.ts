// What the instruction parser understood: the local engine's to-do list, independent of any pixels.

import type { Rgb, TextPosition } from '@gateway/imaging';

export type { Rgb, TextPosition };

/** A colour named in the instruction, kept with its names so the revised prompt can repeat it in either language. */
export interface NamedColor {
  en: string;
  zh: string;
  rgb: Rgb;
}

export type CropRegion =
  'left' | 'right' | 'top' | 'bottom' | 'center' | 'top-left' | 'top-right' | 'bottom-left' | 'bottom-right';
export type Placement = 'top-left' | 'top-right' | 'bottom-left' | 'bottom-right' | 'center';
export type Adjustable = 'brightness' | 'contrast' | 'saturation';

/** Edits of the picture content, applied in instruction order before the result is fitted to the output size. */
export type ContentOperation =
  | { kind: 'grayscale' }
  | { kind: 'sepia' }
  | { kind: 'invert' }
  /** `sigma` is in output pixels, so "blur" looks the same whatever the input resolution. */
  | { kind: 'blur'; sigma: number }
  | { kind: 'sharpen'; sigma: number }
  /** `factor` multiplies the property: 1.2 is +20 %. */
  | { kind: 'adjust'; property: Adjustable; factor: number }
  /** Clockwise degrees as asked (negative = counter-clockwise); corners uncovered by odd angles take `background`. */
  | { kind: 'rotate'; degrees: number; background: NamedColor }
  /** Upside down (about the horizontal axis). */
  | { kind: 'flip' }
  /** Left-right mirror (about the vertical axis). */
  | { kind: 'mirror' }
  | { kind: 'crop-region'; region: CropRegion }
  | { kind: 'crop-aspect'; width: number; height: number }
  /** Below 1 the content shrinks inside an unchanged frame filled with `background`; above 1 it zooms into the centre. */
  | { kind: 'zoom'; factor: number; background: NamedColor }
  /** A resize without a factor: the request's output size already decides the resolution. */
  | { kind: 'resize' };

/** Additions drawn on the final, output-sized frame so they stay crisp and exactly sized. */
export type Decoration =
  /** `width` in output pixels when asked for; otherwise a share of the frame, times `weight` (2 for "thick", 0.5 for "thin"). */
  | { kind: 'border'; color: NamedColor; width?: number; weight: number }
  | { kind: 'text'; text: string; color: NamedColor; position: TextPosition };

export type EditOperation = ContentOperation | Decoration;

export function isDecoration(operation: EditOperation): operation is Decoration {
  return operation.kind === 'border' || operation.kind === 'text';
}

/** How several inputs become one picture; image numbers are 0-based positions in the request. */
export type FusionPlan =
  | { kind: 'side-by-side' | 'top-bottom'; order: number[] }
  /** `scale`: the overlay fits inside this fraction of the base's width and height. */
  | { kind: 'picture-in-picture'; base: number; overlay: number; placement: Placement; scale: number }
  /** `weights` (summing to 1) follow `order`. */
  | { kind: 'blend'; order: number[]; weights: number[] };

export interface PlannedStep {
  operation: EditOperation;
  /** The input this step edits before fusion, when its clause named exactly one image; absent: the composed picture. */
  image?: number;
}

export type PlanNote =
  /** Several images and no layout named: they are placed side by side in request order. */
  | { kind: 'default-fusion' }
  | { kind: 'unused-images'; images: number[] }
  /** The instruction named an image the request does not have. */
  | { kind: 'missing-image'; image: number };

export type Language = 'en' | 'zh';

export interface EditPlan {
  language: Language;
  steps: PlannedStep[];
  fusion?: FusionPlan & { explicit: boolean };
  /** The one input edited when there is no fusion. */
  subject: number;
  /** Phrases of the instruction nothing could be done with. */
  ignored: string[];
  notes: PlanNote[];
}
