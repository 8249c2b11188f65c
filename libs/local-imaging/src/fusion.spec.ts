import { decodeRaster, Raster } from '@gateway/imaging';
import { blend, pictureInPicture, sideBySide, topAndBottom } from './fusion';
import { LocalEditEngine, LocalEditRequest } from './local-edit-engine';
import { BLUE, GREEN, RED, Rgb, near, pixelsOf, solidPng } from '../../../test/fixtures/test-images';

const engine = new LocalEditEngine();

async function solid(width: number, height: number, colour: Rgb): Promise<Raster> {
  return decodeRaster(await solidPng(width, height, colour));
}

function colourAt(raster: Raster, x: number, y: number): Rgb {
  const offset = (y * raster.width + x) * 4;
  return [raster.data[offset], raster.data[offset + 1], raster.data[offset + 2]];
}

async function fuse(
  images: Buffer[],
  prompt: string,
  output: { width: number; height: number },
  overrides: Partial<LocalEditRequest> = {},
) {
  const result = await engine.edit({ images, prompt, seed: 5, variation: 0, output, watermark: false, ...overrides });
  return { result, pixels: await pixelsOf(result.png) };
}

describe('composing several images', () => {
  it('puts images side by side at their natural size: the width is the sum', async () => {
    const composed = await sideBySide([await solid(40, 30, RED), await solid(50, 30, BLUE)]);
    expect([composed.width, composed.height]).toEqual([90, 30]);
    expect(colourAt(composed, 5, 15)).toEqual(RED);
    expect(colourAt(composed, 85, 15)).toEqual(BLUE);
  });

  it('scales side-by-side inputs to the tallest one’s height, keeping their aspect', async () => {
    const composed = await sideBySide([await solid(40, 40, RED), await solid(40, 20, BLUE)]);
    expect([composed.width, composed.height]).toEqual([120, 40]);
    expect(colourAt(composed, 100, 20)).toEqual(BLUE);
  });

  it('stacks images top and bottom at the widest one’s width', async () => {
    const composed = await topAndBottom([await solid(40, 20, RED), await solid(20, 20, BLUE)]);
    expect([composed.width, composed.height]).toEqual([40, 60]);
    expect(colourAt(composed, 20, 5)).toEqual(RED);
    expect(colourAt(composed, 20, 50)).toEqual(BLUE);
  });

  it('puts a smaller copy of one image in a corner of the other', async () => {
    const composed = await pictureInPicture(await solid(100, 100, BLUE), await solid(50, 50, RED), 'bottom-right', 0.3);
    expect([composed.width, composed.height]).toEqual([100, 100]);
    expect(colourAt(composed, 80, 80)).toEqual(RED);
    expect(colourAt(composed, 50, 50)).toEqual(BLUE);
    expect(colourAt(composed, 98, 98)).toEqual(BLUE);
  });

  it('blends images by weight', async () => {
    const composed = await blend([await solid(20, 20, RED), await solid(20, 20, BLUE)], [0.5, 0.5]);
    expect(colourAt(composed, 10, 10)).toEqual([128, 0, 128]);
    const mostlyBlue = await blend([await solid(20, 20, RED), await solid(40, 10, BLUE)], [0.25, 0.75]);
    expect([mostlyBlue.width, mostlyBlue.height]).toEqual([20, 20]);
    expect(colourAt(mostlyBlue, 10, 10)).toEqual([64, 0, 191]);
  });
});

describe('LocalEditEngine with several images', () => {
  const red = () => solidPng(60, 60, RED);
  const blue = () => solidPng(60, 60, BLUE);

  it.each(['把图1和图2左右拼接', 'put image 1 and image 2 side by side'])(
    '"%s": image 1 on the left, image 2 on the right',
    async (prompt) => {
      const { pixels, result } = await fuse([await red(), await blue()], prompt, { width: 120, height: 60 });
      expect(near(pixels.at(10, 30), RED)).toBe(true);
      expect(near(pixels.at(110, 30), BLUE)).toBe(true);
      expect(result.applied).toEqual(['side by side (image 1, image 2)']);
    },
  );

  it('follows the order the images are named in: "图2和图1左右拼接" puts 图2 on the left', async () => {
    const { pixels, result } = await fuse([await red(), await blue()], '图2和图1左右拼接', { width: 120, height: 60 });
    expect(near(pixels.at(10, 30), BLUE)).toBe(true);
    expect(near(pixels.at(110, 30), RED)).toBe(true);
    expect(result.revisedPrompt).toBe('已执行：左右拼接（图2、图1）。');
  });

  it('fits the composition to exactly the output size', async () => {
    const { pixels } = await fuse(
      [await red(), await blue(), await solidPng(60, 30, GREEN)],
      '把图1、图2和图3左右拼接',
      { width: 200, height: 100 },
    );
    expect([pixels.width, pixels.height]).toEqual([200, 100]);
    expect(near(pixels.at(20, 50), RED)).toBe(true);
    expect(near(pixels.at(70, 50), BLUE)).toBe(true);
    expect(near(pixels.at(150, 50), GREEN)).toBe(true);
  });

  it.each(['上下拼接', 'stack image 1 and image 2 top and bottom'])('"%s": image 1 above image 2', async (prompt) => {
    const { pixels } = await fuse([await red(), await blue()], prompt, { width: 60, height: 120 });
    expect(near(pixels.at(30, 10), RED)).toBe(true);
    expect(near(pixels.at(30, 110), BLUE)).toBe(true);
  });

  it('places 图1, small, in the named corner of 图2', async () => {
    const images = [await red(), await solidPng(120, 120, BLUE)];
    const corner = await fuse(images, '将图1放在图2的右下角', { width: 120, height: 120 });
    expect(near(corner.pixels.at(100, 100), RED)).toBe(true);
    expect(near(corner.pixels.at(20, 20), BLUE)).toBe(true);
    expect(near(corner.pixels.at(60, 60), BLUE)).toBe(true);
    const topLeft = await fuse(images, 'put image 1 in the top left corner of image 2', { width: 120, height: 120 });
    expect(near(topLeft.pixels.at(20, 20), RED)).toBe(true);
    expect(near(topLeft.pixels.at(100, 100), BLUE)).toBe(true);
  });

  it('blends 50 % into the mix colour, and by the share asked', async () => {
    const half = await fuse([await red(), await blue()], 'blend image 1 and image 2', { width: 60, height: 60 });
    expect(near(half.pixels.at(30, 30), [128, 0, 128])).toBe(true);
    const share = await fuse([await red(), await blue()], '把图1和图2融合，图2占30%', { width: 60, height: 60 });
    expect(near(share.pixels.at(30, 30), [179, 0, 77])).toBe(true);
  });

  it('fuses first, then applies the edits that follow: "…左右拼接，然后转为黑白"', async () => {
    const { pixels, result } = await fuse([await red(), await blue()], '把图1和图2左右拼接，然后转为黑白', {
      width: 120,
      height: 60,
    });
    expect(pixels.all().every(([r, g, b]) => r === g && g === b)).toBe(true);
    expect(Math.abs(pixels.at(10, 30)[0] - 76)).toBeLessThanOrEqual(2);
    expect(Math.abs(pixels.at(110, 30)[0] - 29)).toBeLessThanOrEqual(2);
    expect(result.applied).toEqual(['side by side (image 1, image 2)', 'grayscale']);
  });

  it('edits only the image a clause names before fusing', async () => {
    const { pixels, result } = await fuse([await red(), await blue()], '把图2转为黑白，然后和图1左右拼接', {
      width: 120,
      height: 60,
    });
    const [r, g, b] = pixels.at(10, 30);
    expect(r === g && g === b).toBe(true);
    expect(near(pixels.at(110, 30), RED)).toBe(true);
    expect(result.applied).toEqual(['grayscale (image 2)', 'side by side (image 2, image 1)']);
  });

  it('without layout words, puts the images side by side in order and says so', async () => {
    const { pixels, result } = await fuse([await red(), await blue()], 'make it brighter', { width: 120, height: 60 });
    expect(pixels.at(10, 30)[0]).toBeGreaterThan(200);
    expect(pixels.at(110, 30)[2]).toBeGreaterThan(200);
    expect(result.revisedPrompt).toContain('Several images and no layout named: placed side by side in request order.');
  });

  it('edits just the image named when no layout is asked for', async () => {
    const { pixels, result } = await fuse([await red(), await blue()], 'invert image 2', { width: 60, height: 60 });
    expect(near(pixels.at(30, 30), [255, 255, 0])).toBe(true);
    expect(result.revisedPrompt).toContain('Not used: image 1.');
  });

  it('decodes only the images the plan uses', async () => {
    const broken = Buffer.from('not an image');
    const { pixels } = await fuse([broken, await blue()], 'invert image 2', { width: 60, height: 60 });
    expect(pixels.width).toBe(60);
    await expect(fuse([broken, await blue()], 'side by side', { width: 60, height: 60 })).rejects.toThrow(
      /image 1 could not be decoded/,
    );
  });
});
