// The content edits, one sharp pipeline each. Strengths given in output pixels are converted with `outputScale`
// (output pixels per content pixel), since the picture is resampled to the output size only at the end.
import { Matrix3x3 } from 'sharp';
import { Raster, transform } from '@gateway/imaging';
import { ContentOperation, NamedColor } from './edit-plan';
import { centredAspect, normalisedAngle, regionOf, zoomWindow } from './layout';

/** Rec. 601 luma in every row: the classic black-and-white weights, and R = G = B exactly. */
const LUMA: Matrix3x3 = [
  [0.299, 0.587, 0.114],
  [0.299, 0.587, 0.114],
  [0.299, 0.587, 0.114],
];
const SEPIA: Matrix3x3 = [
  [0.393, 0.769, 0.189],
  [0.349, 0.686, 0.168],
  [0.272, 0.534, 0.131],
];

export function applyOperation(image: Raster, operation: ContentOperation, outputScale: number): Promise<Raster> {
  switch (operation.kind) {
    case 'grayscale':
      return transform(image, (pipeline) => pipeline.recomb(LUMA));
    case 'sepia':
      return transform(image, (pipeline) => pipeline.recomb(SEPIA));
    case 'invert':
      return transform(image, (pipeline) => pipeline.negate({ alpha: false }));
    case 'blur':
      return transform(image, (pipeline) => pipeline.blur(Math.max(0.3, operation.sigma / outputScale)));
    case 'sharpen':
      return transform(image, (pipeline) =>
        pipeline.sharpen({ sigma: Math.max(0.3, operation.sigma / outputScale), m1: 1, m2: 4, y2: 40, y3: 40 }),
      );
    case 'adjust':
      return transform(image, (pipeline) => {
        if (operation.property === 'contrast') return pipeline.linear(operation.factor, 128 * (1 - operation.factor));
        return pipeline.modulate(
          operation.property === 'brightness' ? { brightness: operation.factor } : { saturation: operation.factor },
        );
      });
    case 'rotate':
      return rotate(image, operation.degrees, operation.background);
    case 'flip':
      return transform(image, (pipeline) => pipeline.flip());
    case 'mirror':
      return transform(image, (pipeline) => pipeline.flop());
    case 'crop-region':
      return transform(image, (pipeline) => pipeline.extract(regionOf(image, operation.region)));
    case 'crop-aspect':
      return transform(image, (pipeline) => pipeline.extract(centredAspect(image, operation.width / operation.height)));
    case 'zoom':
      return zoom(image, operation.factor, operation.background);
    case 'resize':
      // The request's output size already sets the resolution; the final fit does the resampling.
      return Promise.resolve(image);
  }
}

function rotate(image: Raster, degrees: number, background: NamedColor): Promise<Raster> {
  const angle = normalisedAngle(degrees);
  if (angle === 0) return Promise.resolve(image);
  const [r, g, b] = background.rgb;
  return transform(image, (pipeline) =>
    angle % 90 === 0 ? pipeline.rotate(angle) : pipeline.rotate(angle, { background: { r, g, b, alpha: 1 } }),
  );
}

/** Above 1 keeps the central 1/factor of the picture; below 1 shrinks it inside the unchanged frame. */
function zoom(image: Raster, factor: number, background: NamedColor): Promise<Raster> {
  if (factor > 1) return transform(image, (pipeline) => pipeline.extract(zoomWindow(image, factor)));
  const { width, height } = image;
  const inner = { width: Math.max(1, Math.round(width * factor)), height: Math.max(1, Math.round(height * factor)) };
  const left = Math.floor((width - inner.width) / 2);
  const top = Math.floor((height - inner.height) / 2);
  const [r, g, b] = background.rgb;
  return transform(image, (pipeline) =>
    pipeline.resize(inner.width, inner.height, { fit: 'fill' }).extend({
      left,
      top,
      right: width - inner.width - left,
      bottom: height - inner.height - top,
      background: { r, g, b, alpha: 1 },
    }),
  );
}
