// Combining several inputs into one picture at its natural size; fitting it to the output comes afterwards.
import { OverlayOptions } from 'sharp';
import { pipelineOf, Raster, solidRaster, toRaster, transform } from '@gateway/imaging';
import { FusionPlan, Placement } from './edit-plan';
import { Rectangle, Size, columnLayout, rowLayout } from './layout';

/** `images` maps request positions (0-based) to decoded, already edited inputs. */
export function composeImages(plan: FusionPlan, images: ReadonlyMap<number, Raster>): Promise<Raster> {
  const image = (index: number) => {
    const raster = images.get(index);
    if (!raster) throw new Error(`image ${index + 1} is not available for ${plan.kind}`);
    return raster;
  };
  switch (plan.kind) {
    case 'side-by-side':
      return sideBySide(plan.order.map(image));
    case 'top-bottom':
      return topAndBottom(plan.order.map(image));
    case 'picture-in-picture':
      return pictureInPicture(image(plan.base), image(plan.overlay), plan.placement, plan.scale);
    case 'blend':
      return blend(plan.order.map(image), plan.weights);
  }
}

/** Left to right at the tallest input's height, each keeping its aspect (smaller inputs are scaled up to match). */
export function sideBySide(images: Raster[]): Promise<Raster> {
  return arrange(images, rowLayout(images));
}

/** Top to bottom at the widest input's width, each keeping its aspect. */
export function topAndBottom(images: Raster[]): Promise<Raster> {
  return arrange(images, columnLayout(images));
}

/** A smaller copy of `overlay`, fitting inside `scale` of the base's width and height, in a corner (or the centre) of `base`. */
export async function pictureInPicture(
  base: Raster,
  overlay: Raster,
  placement: Placement,
  scale: number,
): Promise<Raster> {
  const ratio = Math.min((base.width * scale) / overlay.width, (base.height * scale) / overlay.height);
  const small = await resizeTo(
    overlay,
    Math.max(1, Math.round(overlay.width * ratio)),
    Math.max(1, Math.round(overlay.height * ratio)),
  );
  const margin = Math.round(Math.min(base.width, base.height) * 0.04);
  const free = { x: base.width - small.width, y: base.height - small.height };
  const left = placement === 'center' ? Math.floor(free.x / 2) : placement.endsWith('left') ? margin : free.x - margin;
  const top = placement === 'center' ? Math.floor(free.y / 2) : placement.startsWith('top') ? margin : free.y - margin;
  return transform(base, (pipeline) => pipeline.composite([layer(small, Math.max(0, left), Math.max(0, top))]));
}

/** A weighted average of the inputs, each filling (cover) the first one's frame. */
export async function blend(images: Raster[], weights: number[]): Promise<Raster> {
  const [first] = images;
  const sameSize = (image: Raster) => image.width === first.width && image.height === first.height;
  const layers = await Promise.all(
    images.map((image) =>
      sameSize(image)
        ? Promise.resolve(image)
        : transform(image, (p) => p.resize(first.width, first.height, { fit: 'cover' })),
    ),
  );
  const total = weights.reduce((sum, weight) => sum + weight, 0) || 1;
  const shares = weights.map((weight) => weight / total);
  const data = Buffer.alloc(first.data.length);
  for (let offset = 0; offset < data.length; offset++) {
    let value = 0;
    for (let index = 0; index < layers.length; index++) value += layers[index].data[offset] * shares[index];
    data[offset] = Math.round(value);
  }
  return { data, width: first.width, height: first.height };
}

function resizeTo(image: Raster, width: number, height: number): Promise<Raster> {
  if (image.width === width && image.height === height) return Promise.resolve(image);
  return transform(image, (pipeline) => pipeline.resize(width, height, { fit: 'fill' }));
}

function layer(image: Raster, left: number, top: number): OverlayOptions {
  return { input: image.data, raw: { width: image.width, height: image.height, channels: 4 }, left, top };
}

/** The images, resized to their cells, on a canvas the layout fills exactly. */
async function arrange(images: Raster[], { size, cells }: { size: Size; cells: Rectangle[] }): Promise<Raster> {
  const scaled = await Promise.all(
    images.map((image, index) => resizeTo(image, cells[index].width, cells[index].height)),
  );
  const canvas = solidRaster(size.width, size.height, [0, 0, 0], 0);
  return toRaster(
    pipelineOf(canvas).composite(scaled.map((image, index) => layer(image, cells[index].left, cells[index].top))),
  );
}
