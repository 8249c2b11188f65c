import sharp from 'sharp';
import { outputGeometry, OutputSize } from '@gateway/imaging';
import { LocalEditEngine, LocalEditRequest } from './local-edit-engine';
import {
  BLUE,
  GREEN,
  RED,
  Rgb,
  YELLOW,
  halvesPng,
  luma,
  mean,
  near,
  noisyPng,
  paintedPng,
  pixelsOf,
  quadrantsPng,
  solidPng,
  standardDeviation,
} from '../../../test/fixtures/test-images';

const engine = new LocalEditEngine();

/** One edit at the last input's own size (so no resampling blurs the assertions), seed 1, first variation. */
async function edit(images: Buffer[], prompt: string, overrides: Partial<LocalEditRequest> = {}) {
  const { width, height } = await sharp(images[images.length - 1]).metadata();
  return engine.edit({
    images,
    prompt,
    seed: 1,
    variation: 0,
    output: { width, height },
    watermark: false,
    ...overrides,
  });
}

async function editPixels(images: Buffer[], prompt: string, overrides: Partial<LocalEditRequest> = {}) {
  return pixelsOf((await edit(images, prompt, overrides)).png);
}

/** The largest difference between horizontal neighbours along the middle row: how sharp a vertical edge is. */
function edgeSteepness(pixels: Awaited<ReturnType<typeof pixelsOf>>): number {
  const y = pixels.height >> 1;
  let steepest = 0;
  for (let x = 1; x < pixels.width; x++)
    steepest = Math.max(steepest, Math.abs(luma(pixels.at(x, y)) - luma(pixels.at(x - 1, y))));
  return steepest;
}

describe('LocalEditEngine', () => {
  describe('colour and tone', () => {
    it.each(['make it black and white', '黑白', '转为灰度'])('"%s" leaves R = G = B on every pixel', async (prompt) => {
      const pixels = await editPixels([await noisyPng(96, 64)], prompt);
      expect(pixels.all().every(([r, g, b]) => r === g && g === b)).toBe(true);
    });

    it.each(['invert', '反色'])('"%s" turns each channel x into 255 − x', async (prompt) => {
      const pixels = await editPixels([await solidPng(32, 32, [200, 50, 10])], prompt);
      expect(near(pixels.at(16, 16), [55, 205, 245])).toBe(true);
    });

    it.each(['sepia', '复古'])('"%s" warms a neutral grey: R > G > B', async (prompt) => {
      const [r, g, b] = (await editPixels([await solidPng(32, 32, [128, 128, 128])], prompt)).at(16, 16);
      expect(r).toBeGreaterThan(g + 10);
      expect(g).toBeGreaterThan(b + 10);
    });

    it('moves the mean level up for "brighter" and down for "调暗", further for a larger percentage', async () => {
      const input = await noisyPng(64, 64);
      const meanLuma = async (prompt: string) => mean((await editPixels([input], prompt)).all().map(luma));
      const original = await meanLuma('keep as is');
      expect(await meanLuma('make it brighter')).toBeGreaterThan(original + 5);
      expect(await meanLuma('调暗')).toBeLessThan(original - 5);
      expect(await meanLuma('亮度提高50%')).toBeGreaterThan(await meanLuma('亮度提高10%'));
    });

    it('spreads the levels for more contrast and narrows them for less', async () => {
      const input = await paintedPng(64, 64, (x) => [64 + 2 * x, 64 + 2 * x, 64 + 2 * x] as Rgb);
      const spread = async (prompt: string) => standardDeviation((await editPixels([input], prompt)).all().map(luma));
      const original = await spread('keep as is');
      expect(await spread('increase contrast')).toBeGreaterThan(original * 1.15);
      expect(await spread('对比度降低50%')).toBeLessThan(original * 0.7);
    });

    it('raises chroma for "more saturated" and lowers it for "降低饱和度"', async () => {
      const input = await solidPng(32, 32, [160, 110, 90]);
      const chroma = async (prompt: string) => {
        const [r, g, b] = (await editPixels([input], prompt)).at(16, 16);
        return Math.max(r, g, b) - Math.min(r, g, b);
      };
      const original = await chroma('keep as is');
      expect(await chroma('more saturated')).toBeGreaterThan(original + 10);
      expect(await chroma('降低饱和度')).toBeLessThan(original - 10);
    });

    it('blurs a hard edge and sharpens a soft one', async () => {
      const hard = await halvesPng(64, 32, [0, 0, 0], [255, 255, 255]);
      expect(edgeSteepness(await editPixels([hard], 'blur'))).toBeLessThan(edgeSteepness(await pixelsOf(hard)) / 3);
      expect(edgeSteepness(await editPixels([hard], '模糊'))).toBeLessThan(edgeSteepness(await pixelsOf(hard)) / 3);
      // Mid-grey levels leave room for the overshoot sharpening adds.
      const soft = await sharp(await halvesPng(64, 32, [64, 64, 64], [192, 192, 192]))
        .blur(1.5)
        .png()
        .toBuffer();
      expect(edgeSteepness(await editPixels([soft], 'sharpen'))).toBeGreaterThan(
        edgeSteepness(await pixelsOf(soft)) * 1.2,
      );
      expect(edgeSteepness(await editPixels([soft], '锐化'))).toBeGreaterThan(
        edgeSteepness(await pixelsOf(soft)) * 1.2,
      );
    });
  });

  describe('geometry', () => {
    it('rotates 90° clockwise: a landscape input becomes portrait with its left side on top', async () => {
      const input = await halvesPng(96, 64, RED, BLUE);
      const output = outputGeometry({ width: 64, height: 96 });
      const pixels = await pixelsOf((await edit([input], 'rotate 90 degrees', { output })).png);
      expect([pixels.width, pixels.height]).toEqual([output.width, output.height]);
      expect(pixels.height).toBeGreaterThan(pixels.width);
      expect(near(pixels.at(pixels.width >> 1, 10), RED)).toBe(true);
      expect(near(pixels.at(pixels.width >> 1, pixels.height - 10), BLUE)).toBe(true);
    });

    it.each(['rotate left', '逆时针旋转90度'])('"%s" turns the other way', async (prompt) => {
      const pixels = await editPixels([await halvesPng(96, 64, RED, BLUE)], prompt, {
        output: { width: 64, height: 96 },
      });
      expect(near(pixels.at(32, 5), BLUE)).toBe(true);
      expect(near(pixels.at(32, 90), RED)).toBe(true);
    });

    it('fills the corners uncovered by an odd angle with the background', async () => {
      const pixels = await editPixels([await solidPng(64, 64, BLUE)], 'rotate 45 degrees');
      expect([pixels.width, pixels.height]).toEqual([64, 64]);
      expect(near(pixels.at(1, 1), [255, 255, 255])).toBe(true);
      expect(near(pixels.at(32, 32), BLUE)).toBe(true);
    });

    const quadrants = () => quadrantsPng(64, 64, [RED, GREEN, BLUE, YELLOW]);

    it.each(['flip vertically', '上下翻转', '垂直翻转'])(
      '"%s" brings the bottom-left colour to the top-left',
      async (prompt) => {
        expect(near((await editPixels([await quadrants()], prompt)).at(8, 8), BLUE)).toBe(true);
      },
    );

    it.each(['mirror', 'flip horizontally', '水平翻转', '镜像'])(
      '"%s" brings the top-right colour to the top-left',
      async (prompt) => {
        expect(near((await editPixels([await quadrants()], prompt)).at(8, 8), GREEN)).toBe(true);
      },
    );

    it.each(['crop the left half', '裁剪左半部分', 'remove the right half'])(
      '"%s" keeps only the left colour',
      async (prompt) => {
        const pixels = await editPixels([await halvesPng(64, 64, RED, BLUE)], prompt, {
          output: { width: 32, height: 64 },
        });
        expect(pixels.all().every((pixel) => near(pixel, RED))).toBe(true);
      },
    );

    it('crops to a 1:1 ratio around the centre', async () => {
      const input = await paintedPng(128, 64, (x) => (x < 32 ? GREEN : x < 64 ? RED : x < 96 ? BLUE : GREEN));
      const pixels = await editPixels([input], '裁剪为1:1', { output: { width: 64, height: 64 } });
      expect(near(pixels.at(2, 32), RED)).toBe(true);
      expect(near(pixels.at(61, 32), BLUE)).toBe(true);
      expect(pixels.all().some((pixel) => near(pixel, GREEN, 40))).toBe(false);
    });

    it('shrinks the content inside the frame for "scale to 50%"', async () => {
      const pixels = await editPixels([await solidPng(64, 64, BLUE)], 'scale to 50%');
      expect(near(pixels.at(32, 32), BLUE)).toBe(true);
      expect(near(pixels.at(4, 4), [255, 255, 255])).toBe(true);
    });

    it('fits the result to exactly the output size whatever the edit', async () => {
      const input = await noisyPng(90, 50);
      for (const prompt of [
        'rotate 90 degrees',
        'crop to 16:9',
        'rotate 33 degrees',
        'crop the top left corner',
        'zoom in 3x',
        'make it square',
      ]) {
        for (const output of [
          { width: 77, height: 45 },
          { width: 40, height: 120 },
        ] as OutputSize[]) {
          const pixels = await pixelsOf((await edit([input], prompt, { output })).png);
          expect([pixels.width, pixels.height]).toEqual([output.width, output.height]);
        }
      }
    });
  });

  describe('decorations', () => {
    it('draws a border of the colour and width asked', async () => {
      const pixels = await editPixels([await solidPng(64, 64, [128, 128, 128])], 'add a red border of 6px');
      for (const [x, y] of [
        [0, 0],
        [63, 63],
        [5, 32],
        [32, 58],
      ])
        expect(pixels.at(x, y)).toEqual([220, 30, 30]);
      expect(near(pixels.at(8, 32), [128, 128, 128])).toBe(true);
      const blue = await editPixels([await solidPng(64, 64, [128, 128, 128])], '加一个蓝色边框');
      expect(blue.at(0, 32)).toEqual([30, 80, 220]);
    });

    it.each(['add text "Hello"', '添加文字“你好，世界”'])(
      'draws "%s" onto the picture (a CJK font is optional)',
      async (prompt) => {
        const input = await solidPng(128, 96, [40, 120, 200]);
        const plain = await editPixels([input], 'keep as is');
        const result = await edit([input], prompt);
        const captioned = await pixelsOf(result.png);
        const changed = captioned
          .all({ left: 0, top: 48, width: 128, height: 48 })
          .filter((pixel, index) => !near(pixel, plain.at(index % 128, 48 + Math.floor(index / 128)), 2));
        expect(changed.length).toBeGreaterThan(100);
        expect(result.applied).toEqual([expect.stringMatching(/^text "/)]);
      },
    );
  });

  describe('reporting', () => {
    it('returns the input fitted to the output for an instruction it cannot act on, and says so', async () => {
      const result = await edit([await solidPng(64, 48, [10, 200, 10])], 'make the cat wear a hat', {
        output: { width: 80, height: 80 },
      });
      const pixels = await pixelsOf(result.png);
      expect([pixels.width, pixels.height]).toEqual([80, 80]);
      expect(result.applied).toEqual([]);
      expect(result.ignored).toEqual(['make the cat wear a hat']);
      expect(result.revisedPrompt).toMatch(/not applied.*make the cat wear a hat/i);
    });

    it('reports in the language of the instruction', async () => {
      const result = await edit([await solidPng(32, 32, RED)], '黑白，然后给猫戴上帽子');
      expect(result.applied).toEqual(['grayscale']);
      expect(result.revisedPrompt).toBe('已执行：黑白。无法执行（本地编辑器不支持）：“给猫戴上帽子”。');
    });

    it('lets the negative prompt cancel an edit and notes it', async () => {
      const result = await edit([await halvesPng(64, 32, [0, 0, 0], [255, 255, 255])], 'blur and invert', {
        negativePrompt: 'blurry, low quality',
      });
      expect(result.applied).toEqual(['invert']);
      expect(result.revisedPrompt).toContain('Negative prompt noted: "blurry, low quality"; cancelled: blur 4px.');
      expect(edgeSteepness(await pixelsOf(result.png))).toBeGreaterThan(200);
    });
  });

  describe('determinism and variations', () => {
    const request = async (overrides: Partial<LocalEditRequest> = {}): Promise<LocalEditRequest> => ({
      images: [await noisyPng(96, 64, 7)],
      prompt: 'rotate 30 degrees, make it brighter and add text "seeded"',
      seed: 1234,
      variation: 0,
      output: { width: 80, height: 60 },
      watermark: true,
      ...overrides,
    });

    it('gives byte-identical PNGs for the same inputs, prompt, seed and variation', async () => {
      const first = await engine.edit(await request());
      const again = await engine.edit(await request());
      expect(first.png.equals(again.png)).toBe(true);
      const variation = await engine.edit(await request({ variation: 2 }));
      expect(variation.png.equals((await engine.edit(await request({ variation: 2 }))).png)).toBe(true);
    });

    it('makes visibly different variations that still follow the instruction', async () => {
      const images = [await noisyPng(64, 64, 3)];
      const outputs = await Promise.all([0, 1, 2].map((variation) => edit(images, '黑白', { variation, seed: 99 })));
      const pixels = await Promise.all(outputs.map((output) => pixelsOf(output.png)));
      for (const image of pixels) expect(image.all().every(([r, g, b]) => r === g && g === b)).toBe(true);
      const levels = pixels.map((image) => image.all().map(([grey]) => grey));
      const meanDifference = (a: number, b: number) =>
        mean(levels[a].map((level, index) => Math.abs(level - levels[b][index])));
      expect(meanDifference(0, 1)).toBeGreaterThan(4);
      expect(meanDifference(1, 2)).toBeGreaterThan(2);
    });

    it('lets the seed shape the first variation, subtly', async () => {
      const [a, b] = await Promise.all([1, 2].map(async (seed) => engine.edit(await request({ seed }))));
      expect(a.png.equals(b.png)).toBe(false);
      const [pixelsA, pixelsB] = await Promise.all([pixelsOf(a.png), pixelsOf(b.png)]);
      const all = pixelsB.all();
      expect(pixelsA.all().every((pixel, index) => near(pixel, all[index], 3))).toBe(true);
    });
  });
});
