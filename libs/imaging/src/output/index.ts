// Output images, whichever provider made them: the size asked for, the visible mark, and the RGBA raster and text
// rendering both are drawn with (the local engine in @gateway/local-imaging draws with them too).
export { outputGeometry } from './geometry';
export type { OutputSize } from './geometry';
export { stampWatermark, watermark } from './watermark';
export { decodeRaster, encodePng, pipelineOf, solidRaster, toRaster, transform } from './raster';
export type { Raster } from './raster';
export { drawCaption, overlay, renderText } from './text-overlay';
export type { Rgb, TextPosition } from './text-overlay';
