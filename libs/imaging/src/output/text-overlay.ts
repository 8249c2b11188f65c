// Text drawn onto a picture with sharp's text input (Pango + fontconfig): captions asked for by the instruction and
// the watermark label. Pango falls back to any installed font that has the glyphs; with none (e.g. no CJK font),
// it draws placeholder boxes rather than failing.
import sharp from 'sharp';
import { Raster, solidRaster, transform } from './raster';

/** A colour as red, green, blue bytes. */
export type Rgb = readonly [number, number, number];
/** Where a caption sits in the frame. */
export type TextPosition = 'top' | 'center' | 'bottom';

/**
 * Pango's family list, then the weight: the default sans for Latin text, then the CJK fonts npm start installs
 * (WenQuanYi Micro Hei, scripts/services.js) or a machine may have (Noto Sans CJK), named so that Chinese glyphs come
 * from them even where fontconfig does not alias them to sans. Their bold is synthesised when the font has none.
 */
const FONT = 'sans,WenQuanYi Micro Hei,Noto Sans CJK SC bold';

/** The text rendered to fit inside width × height (Pango picks the size), or undefined when nothing can render it. */
export async function renderText(text: string, color: Rgb, width: number, height: number): Promise<Raster | undefined> {
  if (text.trim() === '' || width < 4 || height < 4) return undefined;
  try {
    const markup = `<span foreground="${hex(color)}">${escapeMarkup(text)}</span>`;
    const { data, info } = await sharp({
      text: { text: markup, font: FONT, width, height, rgba: true, align: 'centre', wrap: 'word-char' },
    })
      .ensureAlpha()
      .raw()
      .toBuffer({ resolveWithObject: true });
    return info.width > 0 && info.height > 0 ? { data, width: info.width, height: info.height } : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A caption across the frame on a translucent band (dark behind light text, light behind dark), so it reads on any
 * picture. Undefined when the text cannot be rendered; the caller reports that.
 */
export async function drawCaption(
  frame: Raster,
  text: string,
  color: Rgb,
  position: TextPosition,
): Promise<Raster | undefined> {
  const boxHeight = Math.round(frame.height * (position === 'center' ? 0.22 : 0.12));
  const glyphs = await renderText(text, color, Math.round(frame.width * 0.86), boxHeight);
  if (!glyphs) return undefined;
  const padding = Math.max(2, Math.round(glyphs.height * 0.25));
  const bandWidth = Math.min(frame.width, glyphs.width + 2 * padding);
  const bandHeight = Math.min(frame.height, glyphs.height + 2 * padding);
  const margin = Math.round(frame.height * 0.04);
  const left = Math.floor((frame.width - bandWidth) / 2);
  const top =
    position === 'top'
      ? margin
      : position === 'center'
        ? Math.floor((frame.height - bandHeight) / 2)
        : frame.height - bandHeight - margin;
  const light = 0.299 * color[0] + 0.587 * color[1] + 0.114 * color[2] > 128;
  const band = solidRaster(bandWidth, bandHeight, light ? [0, 0, 0] : [255, 255, 255], light ? 115 : 140);
  return overlay(frame, [
    { image: band, left, top: Math.max(0, top) },
    {
      image: glyphs,
      left: left + Math.floor((bandWidth - glyphs.width) / 2),
      top: Math.max(0, top) + Math.floor((bandHeight - glyphs.height) / 2),
    },
  ]);
}

export function overlay(frame: Raster, layers: { image: Raster; left: number; top: number }[]): Promise<Raster> {
  return transform(frame, (pipeline) =>
    pipeline.composite(
      layers.map(({ image, left, top }) => ({
        input: image.data,
        raw: { width: image.width, height: image.height, channels: 4 as const },
        left: Math.max(0, left),
        top: Math.max(0, top),
      })),
    ),
  );
}

function hex([r, g, b]: Rgb): string {
  return `#${[r, g, b].map((value) => value.toString(16).padStart(2, '0')).join('')}`;
}

function escapeMarkup(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;');
}
