// Borders and captions, drawn on the output-sized frame (or on one input before fusion, when a clause named it).
import { drawCaption, Raster, solidRaster, transform } from '@gateway/imaging';
import { Decoration } from './edit-plan';

/** Share of the shorter side a border takes when no width was asked for. */
const BORDER_SHARE = 0.025;

/**
 * `outputScale`: output pixels per pixel of `frame`, so "10px" means 10 pixels of the final image.
 * Undefined when the decoration could not be drawn (text with no usable font).
 */
export async function applyDecoration(
  frame: Raster,
  decoration: Decoration,
  outputScale = 1,
): Promise<Raster | undefined> {
  if (decoration.kind === 'text') return drawCaption(frame, decoration.text, decoration.color.rgb, decoration.position);
  const shorter = Math.min(frame.width, frame.height);
  const asked =
    decoration.width !== undefined
      ? decoration.width / outputScale
      : Math.max(2, shorter * BORDER_SHARE * decoration.weight);
  const width = Math.max(1, Math.min(Math.floor(shorter / 4), Math.round(asked)));
  const [r, g, b] = decoration.color.rgb;
  if (shorter < 4) return solidRaster(frame.width, frame.height, [r, g, b]);
  // Drawn over the picture's edge rather than around it, so the frame keeps its exact size.
  return transform(frame, (pipeline) =>
    pipeline
      .extract({ left: width, top: width, width: frame.width - 2 * width, height: frame.height - 2 * width })
      .extend({ top: width, bottom: width, left: width, right: width, background: { r, g, b, alpha: 1 } }),
  );
}
