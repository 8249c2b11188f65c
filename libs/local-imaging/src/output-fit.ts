import { OutputSize, pipelineOf, Raster, toRaster, transform } from '@gateway/imaging';
// Fitting the edited picture to the exact output size without distorting it.

/**
 * `cover`: filled edge to edge, the overflow cropped evenly; `contain`: the whole picture, centred over a blurred,
 * dimmed copy of itself (no hard bars, and equal channels stay equal, so a grayscale result is grayscale throughout).
 */
export type FitMode = 'exact' | 'cover' | 'contain';

/** Aspect ratios within 6 % of each other are covered (losing at most ~6 % along one side, e.g. to 16-pixel rounding); further apart, contained. */
const COVER_TOLERANCE = 1.06;
const BACKDROP_SHRINK = 16;

export async function fitToOutput(image: Raster, output: OutputSize): Promise<{ raster: Raster; mode: FitMode }> {
  if (image.width === output.width && image.height === output.height) return { raster: image, mode: 'exact' };
  const ratio = image.width / image.height / (output.width / output.height);
  if (Math.max(ratio, 1 / ratio) <= COVER_TOLERANCE) {
    return {
      raster: await transform(image, (p) =>
        p.resize(output.width, output.height, { fit: 'cover', position: 'centre' }),
      ),
      mode: 'cover',
    };
  }
  const [backdrop, content] = await Promise.all([
    blurredBackdrop(image, output),
    transform(image, (p) => p.resize(output.width, output.height, { fit: 'inside' })),
  ]);
  const left = Math.floor((output.width - content.width) / 2);
  const top = Math.floor((output.height - content.height) / 2);
  const raster = await toRaster(
    pipelineOf(backdrop).composite([
      { input: content.data, raw: { width: content.width, height: content.height, channels: 4 }, left, top },
    ]),
  );
  return { raster, mode: 'contain' };
}

async function blurredBackdrop(image: Raster, output: OutputSize): Promise<Raster> {
  const small = await transform(image, (p) =>
    p
      .resize(
        Math.max(1, Math.ceil(output.width / BACKDROP_SHRINK)),
        Math.max(1, Math.ceil(output.height / BACKDROP_SHRINK)),
        { fit: 'cover' },
      )
      .linear(0.8, 0),
  );
  const soft = await transform(small, (p) => p.blur(1.2));
  return transform(soft, (p) => p.resize(output.width, output.height, { fit: 'fill', kernel: 'cubic' }));
}
