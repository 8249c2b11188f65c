// The visible "AI generated" mark (docs/contracts.md, `watermark: true`), for local and upstream outputs alike.
import { decodeRaster, encodePng, Raster, solidRaster } from './raster';
import { overlay, renderText } from './text-overlay';

const LABEL = 'AI generated';

/** Stamps a visible mark (white "AI generated" on a translucent dark badge, bottom-right corner) on a PNG. */
export async function stampWatermark(png: Buffer): Promise<Buffer> {
  return encodePng(await watermark(await decodeRaster(png)));
}

export async function watermark(frame: Raster): Promise<Raster> {
  const shorter = Math.min(frame.width, frame.height);
  const margin = Math.round(shorter * 0.02);
  const textHeight = Math.max(8, Math.min(72, Math.round(shorter * 0.035)));
  const padding = Math.max(2, Math.round(textHeight * 0.4));
  const room = { width: frame.width - 2 * margin, height: frame.height - 2 * margin };
  const box = {
    width: Math.min(Math.round(frame.width * 0.4), room.width - 2 * padding),
    height: Math.min(textHeight, room.height - 2 * padding),
  };
  const glyphs = await renderText(LABEL, [255, 255, 255], box.width, box.height);
  // Without a usable font the badge alone still marks the image.
  const inner = glyphs ?? { width: textHeight * 6, height: textHeight };
  const badgeWidth = Math.max(1, Math.min(room.width, inner.width + 2 * padding));
  const badgeHeight = Math.max(1, Math.min(room.height, inner.height + 2 * padding));
  const left = frame.width - margin - badgeWidth;
  const top = frame.height - margin - badgeHeight;
  const layers = [{ image: solidRaster(badgeWidth, badgeHeight, [0, 0, 0], 110), left, top }];
  if (glyphs) {
    layers.push({
      image: glyphs,
      left: left + Math.floor((badgeWidth - glyphs.width) / 2),
      top: top + Math.floor((badgeHeight - glyphs.height) / 2),
    });
  }
  return overlay(frame, layers);
}
