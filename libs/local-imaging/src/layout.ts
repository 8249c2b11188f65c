// Pure geometry shared by the pixel edits and by editedSize, so a predicted size is the size the engine produces.
import { OutputSize } from '@gateway/imaging';
import { CropRegion, EditOperation, FusionPlan } from './edit-plan';

export type Size = OutputSize;

export interface Rectangle extends Size {
  left: number;
  top: number;
}

/** Left to right at the tallest one's height, each keeping its aspect. */
export function rowLayout(sizes: Size[]): { size: Size; cells: Rectangle[] } {
  const height = Math.max(...sizes.map((size) => size.height));
  let left = 0;
  const cells = sizes.map((size) => {
    const width = Math.max(1, Math.round((size.width * height) / size.height));
    const cell = { left, top: 0, width, height };
    left += width;
    return cell;
  });
  return { size: { width: left, height }, cells };
}

/** Top to bottom at the widest one's width, each keeping its aspect. */
export function columnLayout(sizes: Size[]): { size: Size; cells: Rectangle[] } {
  const transposed = rowLayout(sizes.map(({ width, height }) => ({ width: height, height: width })));
  return {
    size: { width: transposed.size.height, height: transposed.size.width },
    cells: transposed.cells.map(({ left, top, width, height }) => ({
      left: top,
      top: left,
      width: height,
      height: width,
    })),
  };
}

/** The part of a picture a region crop keeps: halves, quarters, or the central half in each direction. */
export function regionOf({ width, height }: Size, region: CropRegion): Rectangle {
  const half = { width: Math.max(1, Math.ceil(width / 2)), height: Math.max(1, Math.ceil(height / 2)) };
  const right = width - half.width;
  const bottom = height - half.height;
  switch (region) {
    case 'left':
      return { left: 0, top: 0, width: half.width, height };
    case 'right':
      return { left: right, top: 0, width: half.width, height };
    case 'top':
      return { left: 0, top: 0, width, height: half.height };
    case 'bottom':
      return { left: 0, top: bottom, width, height: half.height };
    case 'top-left':
      return { left: 0, top: 0, ...half };
    case 'top-right':
      return { left: right, top: 0, ...half };
    case 'bottom-left':
      return { left: 0, top: bottom, ...half };
    case 'bottom-right':
      return { left: right, top: bottom, ...half };
    case 'center':
      return { left: Math.floor(right / 2), top: Math.floor(bottom / 2), ...half };
  }
}

/** The largest centred rectangle of the given aspect (width / height). */
export function centredAspect({ width, height }: Size, aspect: number): Rectangle {
  const cropWidth = Math.max(1, Math.min(width, Math.round(height * aspect)));
  const cropHeight = Math.max(1, Math.min(height, Math.round(width / aspect)));
  return {
    left: Math.floor((width - cropWidth) / 2),
    top: Math.floor((height - cropHeight) / 2),
    width: cropWidth,
    height: cropHeight,
  };
}

/** The centred 1/factor of a picture that a zoom-in keeps. */
export function zoomWindow({ width, height }: Size, factor: number): Rectangle {
  const cropWidth = Math.max(1, Math.round(width / factor));
  const cropHeight = Math.max(1, Math.round(height / factor));
  return {
    left: Math.floor((width - cropWidth) / 2),
    top: Math.floor((height - cropHeight) / 2),
    width: cropWidth,
    height: cropHeight,
  };
}

/** Clockwise degrees brought into [0, 360). */
export function normalisedAngle(degrees: number): number {
  return ((degrees % 360) + 360) % 360;
}

export function sizeAfter(size: Size, operation: EditOperation): Size {
  switch (operation.kind) {
    case 'rotate': {
      const radians = (normalisedAngle(operation.degrees) * Math.PI) / 180;
      const [cos, sin] = [Math.abs(Math.cos(radians)), Math.abs(Math.sin(radians))];
      return {
        width: Math.round(size.width * cos + size.height * sin),
        height: Math.round(size.width * sin + size.height * cos),
      };
    }
    case 'crop-region':
      return dimensions(regionOf(size, operation.region));
    case 'crop-aspect':
      return dimensions(centredAspect(size, operation.width / operation.height));
    case 'zoom':
      return operation.factor > 1 ? dimensions(zoomWindow(size, operation.factor)) : size;
    default:
      return size;
  }
}

export function fusedSize(plan: FusionPlan, sizes: (image: number) => Size): Size {
  switch (plan.kind) {
    case 'side-by-side':
      return rowLayout(plan.order.map(sizes)).size;
    case 'top-bottom':
      return columnLayout(plan.order.map(sizes)).size;
    case 'picture-in-picture':
      return sizes(plan.base);
    case 'blend':
      return sizes(plan.order[0]);
  }
}

function dimensions({ width, height }: Size): Size {
  return { width, height };
}
